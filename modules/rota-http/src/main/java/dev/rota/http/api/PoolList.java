package dev.rota.http.api;

import java.time.Instant;
import java.util.List;

/**
 * The answer of {@code GET /admin/pools}: the pool scaler's last round. Core fields first, then
 * what explains them.
 *
 * @param meanActivationSeconds T, the mean activation measured on the scaler's node; 0 while
 *     nothing was measured
 * @param updatedAt when the scaler's round read the backlog
 */
public record PoolList(List<PoolView> pools, double meanActivationSeconds, Instant updatedAt) {

  /**
   * One pool.
   *
   * @param capabilities what its runners offer, sorted; {@code ["*"]} for the catch-all pool
   * @param min bounds of its runners over the whole cluster
   * @param active runners of the pool that asked for work in the last minute, hold a lease, or run
   *     in an in-cluster pool
   * @param busy those holding a lease
   * @param desired the runners the scaler wants: in-cluster pools of this name are held at it (less
   *     the active external runners), external runners should scale to it
   * @param reason what the number follows and why it moved or held
   * @param inCluster the runners the in-cluster pools of this name are held at, over all nodes
   */
  public record PoolView(
      String name,
      String mode,
      List<String> capabilities,
      int min,
      int max,
      long active,
      long busy,
      int desired,
      String reason,
      int inCluster,
      Backlog backlog,
      Capacity capacity) {}

  /**
   * The work counted in the pool.
   *
   * @param agentsWithInbox agents with unread notifications
   * @param waiting of those, the ones a runner could claim now
   * @param agents agents whose turns by staleness count in this pool (N)
   * @param maxStalenessSeconds how long the stalest of them (without inbox or lease) has waited
   */
  public record Backlog(
      long agentsWithInbox,
      long waiting,
      long oldestUnreadAgeSeconds,
      long agents,
      long maxStalenessSeconds) {}

  /**
   * ADR-011's relation for the pool.
   *
   * @param idealIntervalSeconds N·T/R with R the pool's active runners; 0 while unknown
   * @param targetStalenessSeconds the request's {@code targetStalenessSeconds}, else the pool's own
   *     target, else {@code rota.pools.target-staleness}
   * @param runnersForTargetStaleness T·Σ 1/max(m, S): runners every agent of the pool needs for a
   *     turn within the target (0 while T is unknown)
   */
  public record Capacity(
      double meanActivationSeconds,
      long idealIntervalSeconds,
      long targetStalenessSeconds,
      long runnersForTargetStaleness) {}
}
