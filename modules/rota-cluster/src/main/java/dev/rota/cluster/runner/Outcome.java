package dev.rota.cluster.runner;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.rota.core.model.FailureAction;
import java.util.Objects;

/** How an activation ended, as its runner reports it to the agent. */
public sealed interface Outcome {

  /** The turn is done: the carried notifications become read. */
  record Completed(JsonNode result) implements Outcome {
    public Completed {
      result = result == null ? JsonNodeFactory.instance.objectNode() : result;
    }
  }

  /**
   * The turn failed; {@code action} says what happens to the carried notifications (see {@link
   * FailureAction}), {@code snoozeSeconds} counts only for {@link FailureAction#SNOOZE}.
   */
  record Failed(FailureAction action, String error, long snoozeSeconds) implements Outcome {
    public Failed {
      Objects.requireNonNull(action, "action");
      error = error == null ? "" : error;
      snoozeSeconds = Math.max(0, snoozeSeconds);
    }
  }

  static Outcome completed(JsonNode result) {
    return new Completed(result);
  }

  static Outcome retry(String error) {
    return new Failed(FailureAction.RETRY, error, 0);
  }

  static Outcome discard(String error) {
    return new Failed(FailureAction.DISCARD, error, 0);
  }
}
