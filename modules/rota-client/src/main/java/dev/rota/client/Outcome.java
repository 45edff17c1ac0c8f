package dev.rota.client;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import java.util.Locale;

/**
 * What an {@link ActivationHandler} reports: the activation completed, or failed with one of
 * docs/api.md's actions.
 *
 * <ul>
 *   <li>{@link #complete()}: every carried notification is read;
 *   <li>{@link #retry}: an attempt of every carried notification is used up; after the agent's
 *       {@code maxAttempts} a notification is dead-lettered;
 *   <li>{@link #cancel} / {@link #discard}: the carried notifications are dead-lettered at once;
 *   <li>{@link #snooze}: no attempt is used; the agent is not activated again for the delay.
 * </ul>
 */
public sealed interface Outcome permits Outcome.Completed, Outcome.Failed {

  static Outcome complete() {
    return new Completed(null);
  }

  /** Completes with a result for the agent's history. */
  static Outcome complete(JsonNode result) {
    return new Completed(result);
  }

  static Outcome retry(String error) {
    return new Failed(Action.RETRY, error, Duration.ZERO);
  }

  static Outcome cancel(String error) {
    return new Failed(Action.CANCEL, error, Duration.ZERO);
  }

  static Outcome discard(String error) {
    return new Failed(Action.DISCARD, error, Duration.ZERO);
  }

  /** Gives the agent back without using an attempt; it is not activated for {@code delay}. */
  static Outcome snooze(Duration delay, String reason) {
    if (delay.isNegative()) {
      throw new IllegalArgumentException("negative snooze " + delay);
    }
    return new Failed(Action.SNOOZE, reason, delay);
  }

  record Completed(JsonNode result) implements Outcome {}

  /**
   * @param snooze the delay of a {@code snooze}; zero otherwise (whole seconds on the wire)
   */
  record Failed(Action action, String error, Duration snooze) implements Outcome {}

  /** The failure actions of docs/api.md. */
  enum Action {
    RETRY,
    CANCEL,
    DISCARD,
    SNOOZE;

    public String wireName() {
      return name().toLowerCase(Locale.ROOT);
    }
  }
}
