package dev.rota.core.model;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Locale;

/**
 * Why an activation happened: the agent had unread notifications, one of its schedules fired, or it
 * was the stalest. Declared in the order the assignment rule ranks them (README).
 */
public enum ActivationKind {
  INBOX,
  SCHEDULED,
  EXPLORATION;

  @JsonValue
  public String wireName() {
    return name().toLowerCase(Locale.ROOT);
  }

  @JsonCreator
  public static ActivationKind fromWire(String value) {
    for (ActivationKind kind : values()) {
      if (kind.wireName().equals(value)) {
        return kind;
      }
    }
    return null;
  }
}
