package dev.rota.core.health;

import java.time.Instant;

/**
 * A runner's figures over the sliding window: activations it completed, failed and let expire, the
 * mean and 95th percentile of the time its completed and failed activations took, and its last
 * error.
 *
 * @param meanActivationSeconds null when no activation ended in the window
 * @param p95ActivationSeconds null when no activation ended in the window
 */
public record RunnerStats(
    long completed,
    long failed,
    long expired,
    Double meanActivationSeconds,
    Double p95ActivationSeconds,
    String lastError,
    Instant lastErrorAt) {

  public static final RunnerStats EMPTY = new RunnerStats(0, 0, 0, null, null, null, null);
}
