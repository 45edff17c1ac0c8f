package dev.rota.core.scheduling;

import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;

/**
 * The orders and time arithmetic of the assignment rule (the README), in one place so that the
 * index's ordered views and its promotion of time-excluded agents cannot drift apart.
 *
 * <p>Every order ends on {@code agentId}, so it is total over the rows of one index: two distinct
 * agents never compare equal, which is what lets sorted sets hold the rows themselves.
 */
final class ScheduleOrder {

  /** Inbox order: most unread, then oldest unread, then higher priority, then agent id. */
  static final Comparator<AgentSchedule> INBOX = ScheduleOrder::compareInbox;

  /**
   * Max-wait order: oldest unread first. Agents whose oldest unread arrived at the same instant
   * fall back to the inbox order, so a jump among equals is decided the usual way.
   */
  static final Comparator<AgentSchedule> OLDEST_UNREAD = ScheduleOrder::compareOldestUnread;

  /** Staleness order: never activated first, then oldest {@code lastActivatedAt}, then agent id. */
  static final Comparator<AgentSchedule> STALENESS = ScheduleOrder::compareStaleness;

  /** Scheduled order: the earliest unserved fire first, then agent id. */
  static final Comparator<AgentSchedule> SCHEDULED = ScheduleOrder::compareScheduled;

  private ScheduleOrder() {}

  /**
   * The instant from which the row is due for a scheduled turn, or null when it is not to be (no
   * fire coming, or unread notifications, which the inbox rule serves first). Its snooze counts;
   * its minimum activation interval does not: a schedule is an override.
   */
  static Instant scheduledFrom(AgentSchedule row) {
    if (row.nextFireAt() == null || hasInbox(row)) {
      return null;
    }
    Instant snooze = row.snoozedUntil();
    return snooze != null && snooze.isAfter(row.nextFireAt()) ? snooze : row.nextFireAt();
  }

  static boolean hasInbox(AgentSchedule row) {
    return row.unread() > 0;
  }

  /**
   * The instant from which time no longer keeps the row out of the rule, or null when time never
   * did. An agent with unread notifications waits only for its snooze; an agent without waits for
   * its snooze and for its {@code minActivationInterval}, which applies to staleness work only.
   * Leases and pauses are not time and are not considered here.
   */
  static Instant eligibleFrom(AgentSchedule row) {
    Instant from = row.snoozedUntil();
    if (!hasInbox(row) && row.lastActivatedAt() != null) {
      Instant rested = plus(row.lastActivatedAt(), row.minActivationInterval());
      if (from == null || rested.isAfter(from)) {
        from = rested;
      }
    }
    return from;
  }

  /**
   * Whether the oldest unread notification of {@code row} has waited {@code maxWait} at {@code
   * now}.
   */
  static boolean hasWaitedTooLong(AgentSchedule row, Duration maxWait, Instant now) {
    Instant oldest = row.oldestUnreadAt();
    return oldest != null && !plus(oldest, maxWait).isAfter(now);
  }

  /** {@code instant + duration}, saturating instead of throwing at the ends of the time line. */
  static Instant plus(Instant instant, Duration duration) {
    try {
      return instant.plus(duration);
    } catch (DateTimeException | ArithmeticException overflow) {
      return duration.isNegative() ? Instant.MIN : Instant.MAX;
    }
  }

  private static int compareInbox(AgentSchedule a, AgentSchedule b) {
    int c = Integer.compare(b.unread(), a.unread());
    if (c != 0) {
      return c;
    }
    // A row that claims unread but no receive time is inconsistent; it loses this tie-break.
    c = compareNullsLast(a.oldestUnreadAt(), b.oldestUnreadAt());
    if (c != 0) {
      return c;
    }
    c = Integer.compare(b.priority(), a.priority());
    if (c != 0) {
      return c;
    }
    return a.agentId().compareTo(b.agentId());
  }

  private static int compareOldestUnread(AgentSchedule a, AgentSchedule b) {
    int c = compareNullsLast(a.oldestUnreadAt(), b.oldestUnreadAt());
    return c != 0 ? c : compareInbox(a, b);
  }

  private static int compareStaleness(AgentSchedule a, AgentSchedule b) {
    Instant x = a.lastActivatedAt();
    Instant y = b.lastActivatedAt();
    int c;
    if (x == null || y == null) {
      // Never activated is the stalest of all.
      c = x == y ? 0 : (x == null ? -1 : 1);
    } else {
      c = x.compareTo(y);
    }
    return c != 0 ? c : a.agentId().compareTo(b.agentId());
  }

  private static int compareScheduled(AgentSchedule a, AgentSchedule b) {
    int c = compareNullsLast(a.nextFireAt(), b.nextFireAt());
    return c != 0 ? c : a.agentId().compareTo(b.agentId());
  }

  private static int compareNullsLast(Instant x, Instant y) {
    if (x == null || y == null) {
      return x == y ? 0 : (x == null ? 1 : -1);
    }
    return x.compareTo(y);
  }
}
