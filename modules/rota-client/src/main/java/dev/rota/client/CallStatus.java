package dev.rota.client;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;

/** Where a call stands (docs/api.md, "Agents that work together"). */
public enum CallStatus {
  /** No answer yet; only {@code GET /v1/calls/{callId}} says so, a reply never does. */
  PENDING("pending"),
  /** The target's turn that carried the call completed; its result is the answer. */
  ANSWERED("answered"),
  /** The call's notification became a dead letter, could not be delivered, or was too deep. */
  FAILED("failed"),
  /** The call's {@code timeoutSeconds} passed first. */
  TIMED_OUT("timedOut");

  private final String wireName;

  CallStatus(String wireName) {
    this.wireName = wireName;
  }

  @JsonValue
  public String wireName() {
    return wireName;
  }

  /**
   * @throws IllegalArgumentException for a status this SDK does not know
   */
  @JsonCreator
  public static CallStatus of(String wireName) {
    for (CallStatus status : values()) {
      if (status.wireName.equals(wireName)) {
        return status;
      }
    }
    throw new IllegalArgumentException("unknown call status: " + wireName);
  }
}
