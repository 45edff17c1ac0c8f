package dev.rota.core.pool;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.TreeMap;

/**
 * What one pool has to do at one moment: its share of the backlog ({@link Pools#loads} decides
 * which pool each group of agents counts in) and its runners.
 *
 * @param inboxAgents agents with unread notifications counted in this pool
 * @param waiting of those, the ones a runner could claim now
 * @param oldestUnreadAt the oldest unread notification among them; null when none
 * @param agents agents whose turns by staleness count in this pool (N of N·T/R)
 * @param agentsByMinInterval those agents by minimum activation interval, in seconds
 * @param stalestAt the oldest last activation among them (without unread work or lease); null when
 *     none
 */
public record PoolLoad(
    RunnerCount runners,
    long inboxAgents,
    long waiting,
    Instant oldestUnreadAt,
    long agents,
    Map<Long, Long> agentsByMinInterval,
    Instant stalestAt) {

  public static final PoolLoad IDLE = new PoolLoad(RunnerCount.NONE, 0, 0, null, 0, Map.of(), null);

  public PoolLoad {
    agentsByMinInterval = Map.copyOf(agentsByMinInterval);
  }

  public PoolLoad withRunners(RunnerCount count) {
    return new PoolLoad(
        count, inboxAgents, waiting, oldestUnreadAt, agents, agentsByMinInterval, stalestAt);
  }

  /** How long the oldest unread notification has waited at {@code now}; zero when none. */
  public Duration oldestUnreadAge(Instant now) {
    return age(oldestUnreadAt, now);
  }

  /** How long the stalest agent has gone without a turn at {@code now}; zero when none. */
  public Duration maxStaleness(Instant now) {
    return age(stalestAt, now);
  }

  /** Adds a group's inbox side. */
  PoolLoad plusInbox(BacklogGroup g) {
    return new PoolLoad(
        runners,
        inboxAgents + g.withInbox(),
        waiting + g.waiting(),
        earliest(oldestUnreadAt, g.oldestUnreadAt()),
        agents,
        agentsByMinInterval,
        stalestAt);
  }

  /** Adds a group's staleness side. */
  PoolLoad plusStaleness(BacklogGroup g) {
    Map<Long, Long> byInterval = new TreeMap<>(agentsByMinInterval);
    byInterval.merge(g.minIntervalSeconds(), g.agents(), Long::sum);
    return new PoolLoad(
        runners,
        inboxAgents,
        waiting,
        oldestUnreadAt,
        agents + g.agents(),
        byInterval,
        earliest(stalestAt, g.stalestAt()));
  }

  private static Instant earliest(Instant a, Instant b) {
    if (a == null) {
      return b;
    }
    return b == null || a.isBefore(b) ? a : b;
  }

  private static Duration age(Instant since, Instant now) {
    if (since == null || since.isAfter(now)) {
      return Duration.ZERO;
    }
    return Duration.between(since, now);
  }
}
