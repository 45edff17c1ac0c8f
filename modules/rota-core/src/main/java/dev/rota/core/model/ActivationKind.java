package dev.rota.core.model;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Locale;

/** Why an activation happened: the agent had unread notifications, or it was the stalest. */
public enum ActivationKind {
  INBOX,
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
