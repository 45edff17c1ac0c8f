package dev.rota.core.health;

import java.time.Duration;
import java.time.Instant;

/**
 * How one activation ended for the runner that held it.
 *
 * @param took from the grant to the end
 * @param error the runner's error text, or why the activation ended badly; null when completed
 */
public record RunnerOutcome(Kind kind, Instant at, Duration took, String error) {

  public enum Kind {
    COMPLETED,
    FAILED,
    EXPIRED;

    /** Failures and expiries count against a runner; a completion clears its streak. */
    public boolean bad() {
      return this != COMPLETED;
    }
  }

  /** The pool a runner belongs to, for metrics: an in-cluster runner's id is node/pool-index. */
  public static String poolOf(String runnerId) {
    int slash = runnerId.lastIndexOf('/');
    int dash = runnerId.lastIndexOf('-');
    if (slash < 0 || dash <= slash + 1) {
      return "external";
    }
    return runnerId.substring(slash + 1, dash);
  }
}
