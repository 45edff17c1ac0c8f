package dev.rota.core.health;

import java.time.Duration;

/**
 * When a runner counts as degraded on its own record, and for how long.
 *
 * @param failuresInARow this many failed or expired activations in a row degrade a runner
 * @param within all of them ended within this time of each other
 * @param degradedFor how long such a degradation lasts unless restored or reported healthy
 * @param statsWindow the sliding window of the figures
 */
public record HealthPolicy(
    int failuresInARow, Duration within, Duration degradedFor, Duration statsWindow) {

  public static final HealthPolicy DEFAULT =
      new HealthPolicy(3, Duration.ofMinutes(10), Duration.ofMinutes(5), Duration.ofHours(1));

  public HealthPolicy {
    if (failuresInARow < 1) {
      throw new IllegalArgumentException("failuresInARow must be at least 1");
    }
  }
}
