package dev.rota.cluster.pool;

import dev.rota.cluster.CborSerializable;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * The pool scaler's last round, for {@code GET /admin/pools}, {@code runners.desired} and the
 * metric {@code rota_pool_desired_runners}.
 *
 * @param at when the round read the backlog
 * @param meanActivation T, the mean activation measured on the scaler's node; zero while unknown
 * @param targetStaleness the target of the capacity answers ({@code rota.pools.target-staleness})
 */
public record PoolsReport(
    Instant at, Duration meanActivation, Duration targetStaleness, List<Pool> pools)
    implements CborSerializable {

  public PoolsReport {
    pools = List.copyOf(pools);
  }

  /** Sum of the pools' desired runners. */
  public long desired() {
    return pools.stream().mapToLong(Pool::desired).sum();
  }

  /**
   * One pool in the last round.
   *
   * @param capabilities sorted; {@code ["*"]} for the catch-all pool
   * @param busyInbox busy runners whose lease is inbox (or scheduled) work
   * @param inCluster the runners the in-cluster pools of this name were held at when the round
   *     asked them, over all nodes
   * @param reason one sentence: what the count follows and why it moved or held
   * @param inboxAgents agents with unread notifications counted in this pool
   * @param waiting of those, the ones a runner could claim now
   * @param agents agents whose turns by staleness count in this pool (N)
   * @param agentsByMinInterval those agents by minimum activation interval (seconds)
   * @param targetStaleness the pool's own; zero when it is not sized for staleness
   */
  public record Pool(
      String name,
      String mode,
      List<String> capabilities,
      int min,
      int max,
      long active,
      long busy,
      long busyInbox,
      int desired,
      int inCluster,
      String reason,
      long inboxAgents,
      long waiting,
      Instant oldestUnreadAt,
      long agents,
      Map<Long, Long> agentsByMinInterval,
      Instant stalestAt,
      Duration targetStaleness)
      implements CborSerializable {

    public Pool {
      capabilities = List.copyOf(capabilities);
      agentsByMinInterval = Map.copyOf(agentsByMinInterval);
    }
  }
}
