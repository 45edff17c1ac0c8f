package dev.rota.core.model;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Locale;

/**
 * What a runner asks for when an activation fails. {@code RETRY} consumes an attempt of every
 * carried notification, {@code CANCEL} and {@code DISCARD} dead-letter them at once, {@code SNOOZE}
 * consumes nothing and makes the agent ineligible for a while.
 */
public enum FailureAction {
  RETRY,
  CANCEL,
  DISCARD,
  SNOOZE;

  @JsonValue
  public String wireName() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** Parses the wire name; null for an unknown action. */
  @JsonCreator
  public static FailureAction fromWire(String value) {
    for (FailureAction action : values()) {
      if (action.wireName().equals(value)) {
        return action;
      }
    }
    return null;
  }
}
