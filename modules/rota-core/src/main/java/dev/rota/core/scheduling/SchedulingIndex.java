package dev.rota.core.scheduling;

import dev.rota.core.tenant.AgentKeys;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * The in-memory view a partition's coordinator keeps of its agents: for every capability group, its
 * eligible agents in each order of the assignment rule, of which it publishes the first rows
 * ({@link #heads}) for dispatchers to decide on ({@link HeadsBoard} applies the rule).
 *
 * <p>Agents are grouped by tenant (named by their key, {@link AgentKeys}) and required capability
 * set, and each group keeps ordered views of its eligible agents (see {@link CapabilityGroup}). An
 * update costs O(log n); publishing reads the first rows of each group's views, O(g · k) for g
 * distinct capability sets. Neither scans the agents.
 *
 * <p>Agents excluded only by time (snoozed, or resting within their minimum activation interval)
 * wait in one time-ordered queue, and agents whose next fire is still ahead in a second one; both
 * are promoted lazily by the first call whose {@code now} has passed their time, at O(log n) once
 * per agent. Time in the index therefore only moves forward: a call with an earlier {@code now}
 * than one already seen is answered as of the latest one.
 *
 * <p>The index is the coordinator's optimistic picture, not the truth: the agent entity decides a
 * claim. It is mutable and not thread-safe; one actor owns it.
 */
public final class SchedulingIndex {

  /**
   * Counts of the index's agents, as of the {@code now} they were taken at.
   *
   * @param registered agents in the index
   * @param withInbox agents with unread notifications, whatever their state
   * @param leased agents currently leased
   * @param paused agents paused on their own
   * @param unreadTotal unread notifications over all agents
   * @param oldestUnreadAt receive time of the oldest unread notification of any agent, null when
   *     none
   * @param eligibleInbox agents an inbox runner offering every capability could take now
   * @param eligibleStale agents a staleness runner offering every capability could take now
   */
  public record Stats(
      int registered,
      int withInbox,
      int leased,
      int paused,
      long unreadTotal,
      Instant oldestUnreadAt,
      int eligibleInbox,
      int eligibleStale) {}

  /** An agent excluded only by time, and the instant it stops being excluded. */
  private record Wake(Instant at, String agentId) implements Comparable<Wake> {
    @Override
    public int compareTo(Wake other) {
      int c = at.compareTo(other.at);
      return c != 0 ? c : agentId.compareTo(other.agentId);
    }
  }

  private static final Comparator<AgentSchedule> BY_OLDEST_UNREAD_ONLY =
      (a, b) -> {
        int c = a.oldestUnreadAt().compareTo(b.oldestUnreadAt());
        return c != 0 ? c : a.agentId().compareTo(b.agentId());
      };

  private final Duration inboxMaxWait;
  private final Map<String, AgentSchedule> rows = new HashMap<>();
  private final Map<GroupKey, CapabilityGroup> groups = new HashMap<>();

  /** A group's key: an agent's tenant and the capabilities it requires. */
  private record GroupKey(String tenant, Set<String> capabilities) {
    static GroupKey of(AgentSchedule row) {
      return new GroupKey(AgentKeys.tenantOf(row.agentId()), row.capabilities());
    }
  }

  private final TreeSet<Wake> wakes = new TreeSet<>();

  /** Agents waiting for their next fire (or for a snooze that outlasts it), to become due. */
  private final TreeSet<Wake> fires = new TreeSet<>();

  /** Every agent with unread notifications, eligible or not, for {@link Stats#oldestUnreadAt}. */
  private final TreeSet<AgentSchedule> allUnread = new TreeSet<>(BY_OLDEST_UNREAD_ONLY);

  /** The latest {@code now} seen; wakes at or before it have been promoted. */
  private Instant clock = Instant.MIN;

  private int withInbox;
  private int leased;
  private int paused;
  private long unreadTotal;

  public SchedulingIndex(Duration inboxMaxWait) {
    Objects.requireNonNull(inboxMaxWait, "inboxMaxWait");
    if (inboxMaxWait.isNegative()) {
      throw new IllegalArgumentException("inboxMaxWait must not be negative: " + inboxMaxWait);
    }
    this.inboxMaxWait = inboxMaxWait;
  }

  public Duration inboxMaxWait() {
    return inboxMaxWait;
  }

  /** Inserts the agent's row, or replaces the row it had. O(log n). */
  public void upsert(AgentSchedule row) {
    Objects.requireNonNull(row, "row");
    AgentSchedule previous = rows.remove(row.agentId());
    if (previous != null) {
      detach(previous);
    }
    attach(row);
  }

  /** Forgets the agent; unknown ids are ignored. */
  public void remove(String agentId) {
    AgentSchedule previous = rows.remove(agentId);
    if (previous != null) {
      detach(previous);
    }
  }

  public Optional<AgentSchedule> get(String agentId) {
    return Optional.ofNullable(rows.get(agentId));
  }

  public int size() {
    return rows.size();
  }

  /**
   * The earliest instant after {@code now} at which the rule's answer over this index may change by
   * time alone: a snooze or minimum activation interval ends, a schedule fires, or an eligible
   * agent's oldest unread notification reaches {@code inboxMaxWait} and starts to jump the line.
   * Empty when only an update can change the answer. Capabilities are not considered, so a wake-up
   * may find nothing for a particular runner.
   */
  public Optional<Instant> nextEligibilityChange(Instant now) {
    Instant at = advanceTo(now);
    Instant earliest = wakes.isEmpty() ? null : wakes.first().at();
    if (!fires.isEmpty() && (earliest == null || fires.first().at().isBefore(earliest))) {
      earliest = fires.first().at();
    }
    for (CapabilityGroup group : groups.values()) {
      Instant crossing = group.nextMaxWaitCrossing(at, inboxMaxWait);
      if (crossing != null && (earliest == null || crossing.isBefore(earliest))) {
        earliest = crossing;
      }
    }
    return Optional.ofNullable(earliest);
  }

  /**
   * What a dispatcher needs to apply the rule across partitions without asking: for every
   * capability group, up to {@code k} eligible agents of each ordered view at {@code now}, best
   * first, each with the version {@code version} gives its id (the entity's sequence number). See
   * {@link HeadsBoard}. A group none of whose views changed since the last call with the same
   * {@code k} and the same {@code version} instance answers the same heads again: an agent's
   * version must change only with an {@link #upsert} or {@link #remove} of it.
   */
  public java.util.List<HeadsBoard.GroupHeads> heads(
      int k, Instant now, java.util.function.ToLongFunction<String> version) {
    if (k < 1) {
      throw new IllegalArgumentException("k must be at least 1: " + k);
    }
    advanceTo(now);
    java.util.List<HeadsBoard.GroupHeads> heads = new java.util.ArrayList<>(groups.size());
    for (CapabilityGroup group : groups.values()) {
      HeadsBoard.GroupHeads g = group.heads(k, version);
      if (!g.inbox().isEmpty() || !g.stale().isEmpty() || !g.scheduled().isEmpty()) {
        heads.add(g);
      }
    }
    return heads;
  }

  public Stats stats(Instant now) {
    advanceTo(now);
    int eligibleInbox = 0;
    int eligibleStale = 0;
    for (CapabilityGroup group : groups.values()) {
      eligibleInbox += group.eligibleInbox();
      eligibleStale += group.eligibleStale();
    }
    Instant oldest = allUnread.isEmpty() ? null : allUnread.first().oldestUnreadAt();
    return new Stats(
        rows.size(), withInbox, leased, paused, unreadTotal, oldest, eligibleInbox, eligibleStale);
  }

  private void attach(AgentSchedule row) {
    CapabilityGroup group =
        groups.computeIfAbsent(
            GroupKey.of(row), key -> new CapabilityGroup(key.tenant(), key.capabilities()));
    // One set instance per distinct set, not one per agent: it matters at a million agents.
    AgentSchedule stored =
        row.capabilities() == group.capabilities()
            ? row
            : row.withCapabilities(group.capabilities());
    rows.put(stored.agentId(), stored);
    group.join();
    count(stored, 1);
    if (stored.leased() || stored.paused()) {
      return;
    }
    Instant from = ScheduleOrder.eligibleFrom(stored);
    if (from != null && from.isAfter(clock)) {
      wakes.add(new Wake(from, stored.agentId()));
    } else {
      group.addEligible(stored);
    }
    Instant due = ScheduleOrder.scheduledFrom(stored);
    if (due != null) {
      if (due.isAfter(clock)) {
        fires.add(new Wake(due, stored.agentId()));
      } else {
        group.addScheduled(stored);
      }
    }
  }

  private void detach(AgentSchedule row) {
    GroupKey key = GroupKey.of(row);
    CapabilityGroup group = groups.get(key);
    count(row, -1);
    if (!row.leased() && !row.paused()) {
      // Where the row sits follows from the row itself: in the wake queue until promoted, then in
      // its group's views. No per-agent bookkeeping is needed to find it.
      Instant from = ScheduleOrder.eligibleFrom(row);
      if (from == null || !wakes.remove(new Wake(from, row.agentId()))) {
        group.removeEligible(row);
      }
      Instant due = ScheduleOrder.scheduledFrom(row);
      if (due != null && !fires.remove(new Wake(due, row.agentId()))) {
        group.removeScheduled(row);
      }
    }
    if (group.leave()) {
      groups.remove(key);
    }
  }

  private void count(AgentSchedule row, int sign) {
    if (ScheduleOrder.hasInbox(row)) {
      withInbox += sign;
      unreadTotal += (long) sign * row.unread();
      if (row.oldestUnreadAt() != null) {
        if (sign > 0) {
          allUnread.add(row);
        } else {
          allUnread.remove(row);
        }
      }
    }
    if (row.leased()) {
      leased += sign;
    }
    if (row.paused()) {
      paused += sign;
    }
  }

  /**
   * Moves the index's clock to {@code now} (never back) and promotes agents whose time has come.
   */
  private Instant advanceTo(Instant now) {
    Objects.requireNonNull(now, "now");
    if (now.isAfter(clock)) {
      clock = now;
    }
    while (!wakes.isEmpty() && !wakes.first().at().isAfter(clock)) {
      AgentSchedule row = rows.get(wakes.pollFirst().agentId());
      groups.get(GroupKey.of(row)).addEligible(row);
    }
    while (!fires.isEmpty() && !fires.first().at().isAfter(clock)) {
      AgentSchedule row = rows.get(fires.pollFirst().agentId());
      groups.get(GroupKey.of(row)).addScheduled(row);
    }
    return clock;
  }
}
