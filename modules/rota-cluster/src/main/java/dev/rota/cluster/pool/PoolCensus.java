package dev.rota.cluster.pool;

import dev.rota.cluster.assign.Dispatcher.RunnerSeen;
import dev.rota.cluster.runner.RunnerPool;
import dev.rota.cluster.runner.RunnerStatus;
import dev.rota.core.model.ActivationKind;
import dev.rota.core.model.RunnerMode;
import dev.rota.core.pool.PoolSpec;
import dev.rota.core.pool.Pools;
import dev.rota.core.pool.RunnerCount;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The runners of each scaler pool, from every node's in-cluster pools, the runners the dispatchers
 * saw (external ones), and the kind of each held lease from the read model. Pure, so the counting
 * is tested without a cluster.
 *
 * <p>A runner is <b>active</b> when it runs in an in-cluster pool (and is not draining), asked for
 * work in the last minute, or holds a lease; <b>busy</b> when it holds a lease; busy with
 * <b>inbox</b> work unless its lease is an exploration one (a lease the read model does not show
 * yet counts by the runner's mode).
 */
final class PoolCensus {
  static final Duration ACTIVE_WINDOW = Duration.ofMinutes(1);

  private final Map<String, RunnerCount> counts = new HashMap<>();
  private final Map<String, Integer> inClusterSizes = new HashMap<>();
  private final Map<String, Long> external = new HashMap<>();

  private PoolCensus() {}

  static PoolCensus of(
      Instant now,
      List<PoolSpec> specs,
      Collection<RunnerPool.Runners> nodes,
      Collection<RunnerSeen> seen,
      Map<String, String> leaseKinds) {
    PoolCensus census = new PoolCensus();
    Set<String> inCluster = new HashSet<>();
    for (RunnerPool.Runners node : nodes) {
      node.desired().forEach((pool, size) -> census.inClusterSizes.merge(pool, size, Integer::sum));
      for (RunnerStatus r : node.runners()) {
        inCluster.add(r.runnerId());
        if (r.draining() && !r.busy()) {
          continue;
        }
        Pools.poolOfRunner(specs, r.pool(), r.mode(), r.capabilities())
            .ifPresent(
                p ->
                    census.add(
                        p.name(), r.busy(), inboxWork(leaseKinds.get(r.runnerId()), r.mode())));
      }
    }
    Instant since = now.minus(ACTIVE_WINDOW);
    for (RunnerSeen s : seen) {
      if (s.node() != null || inCluster.contains(s.runnerId())) {
        continue;
      }
      String kind = leaseKinds.get(s.runnerId());
      boolean busy = kind != null;
      if (!busy && (s.lastSeenAt() == null || !s.lastSeenAt().isAfter(since))) {
        continue;
      }
      RunnerMode mode = RunnerMode.fromWire(s.mode());
      if (mode == null) {
        continue;
      }
      Pools.poolOfRunner(specs, null, mode, s.capabilities())
          .ifPresent(
              p -> {
                census.add(p.name(), busy, inboxWork(kind, mode));
                census.external.merge(p.name(), 1L, Long::sum);
              });
    }
    return census;
  }

  private static boolean inboxWork(String leaseKind, RunnerMode mode) {
    if (leaseKind == null) {
      return mode == RunnerMode.NOTIFICATION;
    }
    return !ActivationKind.EXPLORATION.wireName().equals(leaseKind);
  }

  private void add(String pool, boolean busy, boolean inbox) {
    counts.merge(pool, new RunnerCount(1, busy ? 1 : 0, busy && inbox ? 1 : 0), RunnerCount::plus);
  }

  /** Runners by scaler pool name. */
  Map<String, RunnerCount> counts() {
    return Map.copyOf(counts);
  }

  /** Active external runners of a pool. */
  long external(String pool) {
    return external.getOrDefault(pool, 0L);
  }

  /** The sizes the in-cluster pools of this name were held at, over all nodes that answered. */
  int inClusterSize(String pool) {
    return inClusterSizes.getOrDefault(pool, 0);
  }

  /**
   * What the pool has now: the sizes its in-cluster pools are held at plus its active external
   * runners; without an in-cluster pool of its name, its active runners.
   */
  int currentSize(String pool) {
    Integer inCluster = inClusterSizes.get(pool);
    if (inCluster == null) {
      return (int) counts.getOrDefault(pool, RunnerCount.NONE).active();
    }
    return (int) (inCluster + external(pool));
  }
}
