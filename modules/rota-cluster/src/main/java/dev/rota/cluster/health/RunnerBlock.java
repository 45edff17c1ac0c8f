package dev.rota.cluster.health;

import dev.rota.cluster.CborSerializable;
import java.time.Duration;
import java.time.Instant;

/**
 * Why a runner gets no new work: it is degraded (until {@code until}) or draining (until an admin
 * restores it, {@code until} null).
 *
 * @param reason the runner's own words, or why Rota degraded it; at most {@value #MAX_REASON}
 *     characters (longer ones are cut), as every block is published to every node each second
 */
public record RunnerBlock(Status status, String reason, Instant since, Instant until)
    implements CborSerializable {

  public static final int MAX_REASON = 200;

  public RunnerBlock {
    if (reason != null && reason.length() > MAX_REASON) {
      reason = reason.substring(0, MAX_REASON - 1) + "…";
    }
  }

  public enum Status {
    DEGRADED,
    DRAINING;

    public String wireName() {
      return name().toLowerCase(java.util.Locale.ROOT);
    }
  }

  /** Still in force at {@code now}: a degradation ends by itself, a drain does not. */
  public boolean inForce(Instant now) {
    return until == null || now.isBefore(until);
  }

  /** How long a blocked runner should wait before it asks again, at most {@code cap}. */
  public long retryAfterSeconds(Instant now, Duration cap) {
    if (until == null) {
      return Math.max(1, cap.toSeconds());
    }
    long left = (long) Math.ceil(Duration.between(now, until).toMillis() / 1000.0);
    return Math.max(1, Math.min(left, cap.toSeconds()));
  }
}
