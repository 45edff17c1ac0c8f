package dev.rota.core.pool;

import dev.rota.core.model.RunnerMode;
import java.time.Duration;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

/**
 * A runner pool the pool scaler sizes: runners of one mode offering one capability set, held
 * between {@code min} and {@code max} runners over the whole cluster.
 *
 * @param anyCapabilities the pool stands for runners offering whatever agents require (the
 *     catch-all default pool, {@code capabilities = ["*"]}); {@code capabilities} is then empty
 * @param targetUtilisation the share of runners that should hold inbox work (busy ÷ active) in
 *     steady state, 0 &lt; u ≤ 1; more busy runners than that ask for more runners
 * @param targetInboxWait how long waiting inbox work may take to drain; with the measured
 *     activation time T, {@code waiting · T / targetInboxWait} runners are added for it
 * @param targetStaleness the interval every agent of the pool should get a turn within; {@link
 *     Duration#ZERO} when the pool is not sized for staleness (never so for exploration pools)
 */
public record PoolSpec(
    String name,
    RunnerMode mode,
    Set<String> capabilities,
    boolean anyCapabilities,
    int min,
    int max,
    double targetUtilisation,
    Duration targetInboxWait,
    Duration targetStaleness) {

  public PoolSpec {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(mode, "mode");
    capabilities = Set.copyOf(anyCapabilities ? Set.of() : capabilities);
    Objects.requireNonNull(targetInboxWait, "targetInboxWait");
    Objects.requireNonNull(targetStaleness, "targetStaleness");
    require(name, name.matches("[A-Za-z0-9_.-]{1,64}"), "name must match [A-Za-z0-9_.-]{1,64}");
    require(name, min >= 0 && min <= max, "needs 0 <= min <= max");
    require(name, max <= 100_000, "max must be at most 100000");
    require(
        name,
        targetUtilisation > 0 && targetUtilisation <= 1,
        "target-utilisation must be in (0, 1]");
    require(
        name,
        !targetInboxWait.isNegative() && !targetInboxWait.isZero(),
        "target-inbox-wait must be positive");
    require(name, !targetStaleness.isNegative(), "target-staleness must not be negative");
    require(
        name,
        mode != RunnerMode.EXPLORATION || !targetStaleness.isZero(),
        "an exploration pool needs a positive target-staleness");
  }

  /** Whether this pool's runners may take an agent that requires {@code required}. */
  public boolean offersAll(Set<String> required) {
    return anyCapabilities || capabilities.containsAll(required);
  }

  /** Whether the pool is sized for staleness work (exploration, or hybrid with a target). */
  public boolean sizedForStaleness() {
    return mode.takesStaleness() && !targetStaleness.isZero();
  }

  /** The capability set as the API shows it: sorted, {@code ["*"]} for the catch-all pool. */
  public Set<String> shownCapabilities() {
    return anyCapabilities ? Set.of("*") : new TreeSet<>(capabilities);
  }

  private static void require(String name, boolean condition, String message) {
    if (!condition) {
      throw new IllegalArgumentException("pool " + name + ": " + message);
    }
  }
}
