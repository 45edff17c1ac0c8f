package dev.rota.core.pool;

import java.time.Duration;
import java.util.Map;

/**
 * The capacity relation of fairness (see performance.md): when R runners serve N agents in turn and
 * an activation takes T, every agent gets a turn about every N·T/R; conversely a target staleness S
 * needs N·T/S runners. An agent whose minimum activation interval m is longer than S needs only T/m
 * of a runner, so the exact need is T·Σ 1/max(m, S).
 */
public final class Capacity {
  private Capacity() {}

  /** N·T/R; zero while T is unknown (nothing measured) or there is no runner. */
  public static Duration idealInterval(long agents, Duration meanActivation, long runners) {
    if (runners <= 0 || agents <= 0 || !known(meanActivation)) {
      return Duration.ZERO;
    }
    return Duration.ofNanos(Math.round(agents * (double) meanActivation.toNanos() / runners));
  }

  /**
   * Runners needed so that every agent gets a turn within {@code targetStaleness}: T·Σ 1/max(m, S),
   * rounded up; 0 while T is unknown.
   *
   * @param agentsByMinInterval agents by their minimum activation interval in seconds
   */
  public static long runnersFor(
      Map<Long, Long> agentsByMinInterval, Duration meanActivation, Duration targetStaleness) {
    return (long) Math.ceil(load(agentsByMinInterval, meanActivation, targetStaleness) - 1e-9);
  }

  /** T·Σ 1/max(m, S) unrounded: the runners' worth of staleness work; 0 while T is unknown. */
  public static double load(
      Map<Long, Long> agentsByMinInterval, Duration meanActivation, Duration targetStaleness) {
    if (!known(meanActivation) || targetStaleness.isZero() || targetStaleness.isNegative()) {
      return 0;
    }
    double target = seconds(targetStaleness);
    double turnsPerSecond = 0;
    for (var e : agentsByMinInterval.entrySet()) {
      turnsPerSecond += e.getValue() / Math.max(e.getKey(), target);
    }
    return turnsPerSecond * seconds(meanActivation);
  }

  static boolean known(Duration meanActivation) {
    return meanActivation != null && !meanActivation.isZero() && !meanActivation.isNegative();
  }

  static double seconds(Duration d) {
    return d.toNanos() / 1e9;
  }
}
