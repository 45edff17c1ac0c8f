package dev.rota.cluster.runner;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.rota.core.model.FailureAction;
import dev.rota.core.model.Send;
import java.util.List;
import java.util.Objects;

/** How an activation ended, as its runner reports it to the agent. */
public sealed interface Outcome {

  /**
   * The turn is done: the carried notifications become read, and {@code sends} (notifications and
   * calls to other agents of the tenant, as a completion's {@code send} over HTTP) are written with
   * the completion and delivered if and only if it is. The list is fixed here, so a report sent
   * again after a lost answer carries the same items in the same order and their dedupe keys hold.
   */
  record Completed(JsonNode result, List<Send> sends) implements Outcome {
    public Completed {
      result = result == null ? JsonNodeFactory.instance.objectNode() : result;
      sends = sends == null ? List.of() : List.copyOf(sends);
    }

    public Completed(JsonNode result) {
      this(result, List.of());
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

  /** Completed, with the turn's sends. */
  static Outcome completed(JsonNode result, List<Send> sends) {
    return new Completed(result, sends);
  }

  static Outcome retry(String error) {
    return new Failed(FailureAction.RETRY, error, 0);
  }

  static Outcome discard(String error) {
    return new Failed(FailureAction.DISCARD, error, 0);
  }
}
