package dev.rota.http;

import dev.rota.cluster.assign.Dispatcher.RunnerSeen;
import dev.rota.cluster.health.RunnerBlock;
import dev.rota.cluster.health.RunnerHealth;
import dev.rota.cluster.runner.RunnerPool;
import dev.rota.cluster.runner.RunnerStatus;
import dev.rota.http.api.RunnerList.Degraded;
import dev.rota.http.api.RunnerList.RunnerView;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The runners of the cluster, put together from three partial views: the runners each node's
 * dispatcher saw asking for work (external and in-cluster), the runners each node's pool runs (live
 * and exact about their own lease), and the leases the read model shows held. Pure, so the counting
 * rules are tested without a cluster.
 *
 * <ul>
 *   <li><b>busy</b>: runners holding a lease, in the read model or by their pool's word;
 *   <li><b>active</b>: runners that asked for work within the last minute, hold a lease, or run in
 *       a pool (a runner deep in a long activation asks for nothing meanwhile, yet is active);
 *   <li><b>desired</b>: the sizes the pools are held at, plus the active external runners, whose
 *       number no pool decides.
 * </ul>
 */
final class RunnerCensus {
  static final Duration ACTIVE_WINDOW = Duration.ofMinutes(1);

  private final Map<String, RunnerView> runners;
  private final long active;
  private final long busy;
  private final long desired;

  private RunnerCensus(Map<String, RunnerView> runners, long active, long busy, long desired) {
    this.runners = runners;
    this.active = active;
    this.busy = busy;
    this.desired = desired;
  }

  /**
   * @param leases lease id by runner id, from the read model
   */
  static RunnerCensus of(
      Instant now,
      Collection<RunnerSeen> seen,
      Collection<RunnerPool.Runners> pools,
      Map<String, String> leases) {
    Map<String, RunnerView> views = new TreeMap<>();
    for (RunnerSeen s : seen) {
      views.put(
          s.runnerId(),
          new RunnerView(
              s.runnerId(),
              s.node(),
              s.mode(),
              sorted(s.capabilities()),
              leases.get(s.runnerId()),
              s.lastSeenAt()));
    }
    Set<String> inPools = new HashSet<>();
    Set<String> busyIds = new HashSet<>(leases.keySet());
    long poolSizes = 0;
    for (RunnerPool.Runners pool : pools) {
      poolSizes += pool.desired().values().stream().mapToLong(Integer::longValue).sum();
      for (RunnerStatus r : pool.runners()) {
        inPools.add(r.runnerId());
        if (r.busy()) {
          busyIds.add(r.runnerId());
        }
        RunnerView before = views.get(r.runnerId());
        views.put(
            r.runnerId(),
            new RunnerView(
                r.runnerId(),
                r.node(),
                r.mode().wireName(),
                sorted(r.capabilities()),
                r.leaseId(),
                latest(before == null ? null : before.lastSeenAt(), r.lastSeenAt())));
      }
    }
    Set<String> activeIds = new HashSet<>(busyIds);
    activeIds.addAll(inPools);
    Instant since = now.minus(ACTIVE_WINDOW);
    views.values().stream()
        .filter(v -> v.lastSeenAt() != null && v.lastSeenAt().isAfter(since))
        .forEach(v -> activeIds.add(v.runnerId()));
    long externalActive =
        activeIds.stream()
            .filter(id -> !inPools.contains(id))
            .filter(id -> views.get(id) == null || views.get(id).node() == null)
            .count();
    return new RunnerCensus(views, activeIds.size(), busyIds.size(), poolSizes + externalActive);
  }

  /** Every runner known, by runner id. */
  List<RunnerView> runners() {
    return new ArrayList<>(runners.values());
  }

  /**
   * Every runner known, by runner id, with its figures and block from {@code health}: a blocked
   * runner is degraded or draining whatever it holds. A runner only the health record knows (a
   * drain named before it ever asked, figures of a runner that stopped asking) is listed too.
   */
  List<RunnerView> runners(Map<String, RunnerHealth.RunnerHealthView> health, Instant now) {
    Map<String, RunnerView> all = new TreeMap<>(runners);
    health.forEach(
        (id, h) -> {
          RunnerView seen = all.get(id);
          RunnerBlock block = h.block() != null && h.block().inForce(now) ? h.block() : null;
          String status =
              block != null ? block.status().wireName() : seen == null ? "idle" : seen.status();
          Degraded degraded =
              block != null && block.status() == RunnerBlock.Status.DEGRADED
                  ? new Degraded(block.reason(), block.since(), block.until())
                  : null;
          all.put(
              id,
              seen == null
                  ? new RunnerView(
                      id, null, null, List.of(), status, null, null, h.stats(), degraded)
                  : new RunnerView(
                      id,
                      seen.node(),
                      seen.mode(),
                      seen.capabilities(),
                      status,
                      seen.leaseId(),
                      seen.lastSeenAt(),
                      h.stats(),
                      degraded));
        });
    return new ArrayList<>(all.values());
  }

  long active() {
    return active;
  }

  long busy() {
    return busy;
  }

  long desired() {
    return desired;
  }

  private static List<String> sorted(Set<String> capabilities) {
    return capabilities.stream().sorted().toList();
  }

  private static Instant latest(Instant a, Instant b) {
    if (a == null) {
      return b;
    }
    return b == null || a.isAfter(b) ? a : b;
  }
}
