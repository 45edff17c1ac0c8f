package dev.rota.core.model;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Locale;

/** What a runner asks for: inbox work only, staleness work only, or inbox then staleness. */
public enum RunnerMode {
  NOTIFICATION,
  EXPLORATION,
  HYBRID;

  @JsonValue
  public String wireName() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** Parses the wire name; null for an unknown mode. */
  @JsonCreator
  public static RunnerMode fromWire(String value) {
    for (RunnerMode mode : values()) {
      if (mode.wireName().equals(value)) {
        return mode;
      }
    }
    return null;
  }

  public boolean takesInbox() {
    return this != EXPLORATION;
  }

  public boolean takesStaleness() {
    return this != NOTIFICATION;
  }
}
