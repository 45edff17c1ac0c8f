package dev.rota.core.scheduling;

import dev.rota.core.model.AgentState;
import java.time.Duration;
import java.time.Instant;
import java.util.Set;

/**
 * Everything the assignment rule needs to know about one agent: the row a coordinator keeps in its
 * {@link SchedulingIndex} and the journal keeps in {@code agent_schedule}.
 *
 * @param agentId entity id
 * @param capabilities capabilities the agent requires (a runner must offer all of them)
 * @param priority higher wins the last inbox tie-break
 * @param unread number of unread notifications
 * @param oldestUnreadAt receive time of the oldest unread notification, null when none
 * @param lastActivatedAt completion time of the last activation, null when never activated
 * @param minActivationInterval the agent is not stale-eligible within this time of its last run
 * @param leased a runner holds the agent's lease
 * @param paused the agent is paused on its own
 * @param snoozedUntil the agent is ineligible before this time, null when not snoozed
 * @param nextFireAt the earliest fire of its schedules not yet served, null when none is coming:
 *     from then on the agent is due for a scheduled turn
 */
public record AgentSchedule(
    String agentId,
    Set<String> capabilities,
    int priority,
    int unread,
    Instant oldestUnreadAt,
    Instant lastActivatedAt,
    Duration minActivationInterval,
    boolean leased,
    boolean paused,
    Instant snoozedUntil,
    Instant nextFireAt) {

  public AgentSchedule {
    capabilities = Set.copyOf(capabilities);
    if (minActivationInterval == null) {
      minActivationInterval = Duration.ZERO;
    }
  }

  /** A row of an agent without schedules. */
  public AgentSchedule(
      String agentId,
      Set<String> capabilities,
      int priority,
      int unread,
      Instant oldestUnreadAt,
      Instant lastActivatedAt,
      Duration minActivationInterval,
      boolean leased,
      boolean paused,
      Instant snoozedUntil) {
    this(
        agentId,
        capabilities,
        priority,
        unread,
        oldestUnreadAt,
        lastActivatedAt,
        minActivationInterval,
        leased,
        paused,
        snoozedUntil,
        null);
  }

  /** This row with the lease flag set or cleared; every other component is kept. */
  public AgentSchedule withLeased(boolean leased) {
    return new AgentSchedule(
        agentId,
        capabilities,
        priority,
        unread,
        oldestUnreadAt,
        lastActivatedAt,
        minActivationInterval,
        leased,
        paused,
        snoozedUntil,
        nextFireAt);
  }

  /** This row with another capability set (used to share one set instance per distinct set). */
  AgentSchedule withCapabilities(Set<String> capabilities) {
    return new AgentSchedule(
        agentId,
        capabilities,
        priority,
        unread,
        oldestUnreadAt,
        lastActivatedAt,
        minActivationInterval,
        leased,
        paused,
        snoozedUntil,
        nextFireAt);
  }

  /** What the assignment rule needs of an agent, for the coordinator's index and the read model. */
  public static AgentSchedule of(AgentState state) {
    return new AgentSchedule(
        state.agentId(),
        Set.copyOf(state.config().capabilities()),
        state.config().priority(),
        state.inbox().size(),
        state.oldestUnreadAt().orElse(null),
        state.lastActivatedAt(),
        state.config().minActivationInterval(),
        state.lease() != null,
        state.paused(),
        state.snoozedUntil(),
        state.nextFireAt());
  }
}
