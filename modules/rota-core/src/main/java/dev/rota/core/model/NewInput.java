package dev.rota.core.model;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Locale;

/**
 * What a notification that arrives while the agent holds a lease does to the turn in flight. The
 * agent decides it when the notification is accepted, in the same step that owns the inbox and the
 * lease, so the answer and the lease can never disagree (docs/architecture.md, "New input during a
 * turn").
 */
public enum NewInput {
  /** It stays unread for the next turn: the behaviour of an agent that says nothing. */
  QUEUE,
  /** It joins the running lease; the runner hears of it, and completing the lease completes it. */
  STEER,
  /**
   * The running lease ends at once; its notifications return unread with their attempt not used up,
   * and the agent is eligible again.
   */
  INTERRUPT,
  /** It is refused ({@code turn_in_progress}) and not stored. */
  REJECT;

  @JsonValue
  public String wireName() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** Parses the wire name; null for an unknown one. */
  @JsonCreator
  public static NewInput fromWire(String value) {
    for (NewInput policy : values()) {
      if (policy.wireName().equals(value)) {
        return policy;
      }
    }
    return null;
  }

  /** The wire names, for error messages. */
  public static String wireNames() {
    return "queue, steer, interrupt, reject";
  }
}
