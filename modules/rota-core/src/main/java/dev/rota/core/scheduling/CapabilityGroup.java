package dev.rota.core.scheduling;

import java.time.Duration;
import java.time.Instant;
import java.util.Set;
import java.util.TreeSet;

/**
 * The agents of one {@link SchedulingIndex} of one tenant that require the same capability set,
 * with the ordered views the assignment rule reads. A runner either offers the whole set or none of
 * the group is for it, so a request tests the set once instead of every agent; a dispatcher
 * choosing between tenants finds each tenant's agents in groups of their own.
 *
 * <p>Only agents eligible right now sit in the views: leased, paused and time-excluded agents are
 * kept out by the index. Agents with unread notifications are in the inbox view and the
 * oldest-unread view; agents without are in the staleness view, and those of them with a due
 * schedule also in the scheduled view. The views hold the immutable rows themselves, so a row's
 * position can never go stale; a changed row is removed and re-added.
 */
final class CapabilityGroup {

  private static final Duration ONE_NANO = Duration.ofNanos(1);

  private final String tenant;
  private final Set<String> capabilities;
  private final TreeSet<AgentSchedule> inbox = new TreeSet<>(ScheduleOrder.INBOX);
  private final TreeSet<AgentSchedule> oldestUnread = new TreeSet<>(ScheduleOrder.OLDEST_UNREAD);
  private final TreeSet<AgentSchedule> stale = new TreeSet<>(ScheduleOrder.STALENESS);
  private final TreeSet<AgentSchedule> scheduled = new TreeSet<>(ScheduleOrder.SCHEDULED);

  /** Registered agents of this set, eligible or not; the index drops the group at zero. */
  private int members;

  /**
   * The last {@link #heads}, and the {@code k} and version function it was computed with: reused
   * until a view changes, so a coordinator publishing after a change in one group does not rebuild
   * every group's heads. A version changes only with its agent's row, which re-adds the row.
   */
  private HeadsBoard.GroupHeads lastHeads;

  private int lastK;
  private java.util.function.ToLongFunction<String> lastVersion;

  CapabilityGroup(String tenant, Set<String> capabilities) {
    this.tenant = tenant;
    this.capabilities = capabilities;
  }

  String tenant() {
    return tenant;
  }

  /** The canonical set instance shared by every row of the group. */
  Set<String> capabilities() {
    return capabilities;
  }

  boolean isOfferedBy(Set<String> offered) {
    return offered.containsAll(capabilities);
  }

  void join() {
    members++;
  }

  /** Returns true when the group has no members left. */
  boolean leave() {
    return --members == 0;
  }

  void addEligible(AgentSchedule row) {
    lastHeads = null;
    if (ScheduleOrder.hasInbox(row)) {
      inbox.add(row);
      oldestUnread.add(row);
    } else {
      stale.add(row);
    }
  }

  void removeEligible(AgentSchedule row) {
    lastHeads = null;
    if (ScheduleOrder.hasInbox(row)) {
      inbox.remove(row);
      oldestUnread.remove(row);
    } else {
      stale.remove(row);
    }
  }

  void addScheduled(AgentSchedule row) {
    lastHeads = null;
    scheduled.add(row);
  }

  void removeScheduled(AgentSchedule row) {
    lastHeads = null;
    scheduled.remove(row);
  }

  /**
   * Up to {@code k} rows of each view, best first, for {@link SchedulingIndex#heads}; the same
   * instance as last time when no view changed since and {@code k} and {@code version} are the
   * same.
   */
  HeadsBoard.GroupHeads heads(int k, java.util.function.ToLongFunction<String> version) {
    if (lastHeads == null || k != lastK || version != lastVersion) {
      lastHeads = computeHeads(k, version);
      lastK = k;
      lastVersion = version;
    }
    return lastHeads;
  }

  private HeadsBoard.GroupHeads computeHeads(
      int k, java.util.function.ToLongFunction<String> version) {
    return new HeadsBoard.GroupHeads(
        tenant,
        capabilities,
        first(inbox, k, version),
        first(oldestUnread, k, version),
        inbox.size() <= k,
        first(stale, k, version),
        stale.size() <= k,
        first(scheduled, k, version),
        scheduled.size() <= k);
  }

  private static java.util.List<HeadsBoard.Head> first(
      TreeSet<AgentSchedule> view, int k, java.util.function.ToLongFunction<String> version) {
    java.util.List<HeadsBoard.Head> heads = new java.util.ArrayList<>(Math.min(k, view.size()));
    for (AgentSchedule row : view) {
      if (heads.size() == k) {
        break;
      }
      heads.add(new HeadsBoard.Head(row, version.applyAsLong(row.agentId())));
    }
    return heads;
  }

  int eligibleInbox() {
    return inbox.size();
  }

  int eligibleStale() {
    return stale.size();
  }

  /**
   * The earliest instant after {@code now} at which an eligible agent of this group starts to jump
   * the line, or null. Agents that already jump are skipped by a seek, not a walk, because under
   * load nearly all of them may have waited too long.
   */
  Instant nextMaxWaitCrossing(Instant now, Duration maxWait) {
    Instant cutoff = ScheduleOrder.plus(now, maxWait.negated());
    AgentSchedule notYetWaiting =
        oldestUnread.ceiling(lowestWithOldestUnreadAt(ScheduleOrder.plus(cutoff, ONE_NANO)));
    if (notYetWaiting == null || notYetWaiting.oldestUnreadAt() == null) {
      return null;
    }
    return ScheduleOrder.plus(notYetWaiting.oldestUnreadAt(), maxWait);
  }

  /** A probe that sorts before every row whose oldest unread arrived at {@code instant}. */
  private static AgentSchedule lowestWithOldestUnreadAt(Instant instant) {
    return new AgentSchedule(
        "",
        Set.of(),
        Integer.MAX_VALUE,
        Integer.MAX_VALUE,
        instant,
        null,
        null,
        false,
        false,
        null);
  }
}
