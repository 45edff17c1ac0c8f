package dev.rota.core.scheduling;

import dev.rota.core.model.ActivationKind;
import dev.rota.core.model.RunnerMode;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The assignment rule written the obvious way: scan every row, filter, take the least. It shares no
 * code with {@link HeadsBoard} and {@link SchedulingIndex} (not their orders, not their time
 * arithmetic), so that the randomized tests compare two independent readings of the rule.
 */
final class ReferenceScheduler {

  private final Duration maxWait;
  private final Map<String, AgentSchedule> rows = new LinkedHashMap<>();

  ReferenceScheduler(Duration maxWait) {
    this.maxWait = maxWait;
  }

  void upsert(AgentSchedule row) {
    rows.put(row.agentId(), row);
  }

  void remove(String agentId) {
    rows.remove(agentId);
  }

  void markLeased(String agentId) {
    AgentSchedule row = rows.get(agentId);
    if (row != null) {
      rows.put(
          agentId,
          new AgentSchedule(
              row.agentId(),
              row.capabilities(),
              row.priority(),
              row.unread(),
              row.oldestUnreadAt(),
              row.lastActivatedAt(),
              row.minActivationInterval(),
              true,
              row.paused(),
              row.snoozedUntil(),
              row.nextFireAt()));
    }
  }

  Optional<AgentSchedule> get(String agentId) {
    return Optional.ofNullable(rows.get(agentId));
  }

  int size() {
    return rows.size();
  }

  List<String> ids() {
    return new ArrayList<>(rows.keySet());
  }

  Optional<HeadsBoard.Pick> next(RunnerMode mode, Set<String> offered, Instant now) {
    if (mode == RunnerMode.NOTIFICATION || mode == RunnerMode.HYBRID) {
      Optional<HeadsBoard.Pick> inbox = nextInbox(offered, now);
      if (inbox.isPresent()) {
        return inbox;
      }
    }
    if (mode == RunnerMode.EXPLORATION || mode == RunnerMode.HYBRID) {
      Optional<HeadsBoard.Pick> scheduled = nextScheduled(offered, now);
      return scheduled.isPresent() ? scheduled : nextStale(offered, now);
    }
    return Optional.empty();
  }

  Optional<HeadsBoard.Pick> nextInbox(Set<String> offered, Instant now) {
    Comparator<AgentSchedule> usual =
        Comparator.comparing((AgentSchedule r) -> -(long) r.unread())
            .thenComparing(
                AgentSchedule::oldestUnreadAt, Comparator.nullsLast(Comparator.naturalOrder()))
            .thenComparing((AgentSchedule r) -> -(long) r.priority())
            .thenComparing(AgentSchedule::agentId);
    List<AgentSchedule> candidates =
        rows.values().stream().filter(r -> eligible(r, offered, now) && r.unread() > 0).toList();
    Instant waitedSince = now.minus(maxWait);
    Optional<AgentSchedule> jumper =
        candidates.stream()
            .filter(r -> r.oldestUnreadAt() != null && !r.oldestUnreadAt().isAfter(waitedSince))
            .min(Comparator.comparing(AgentSchedule::oldestUnreadAt).thenComparing(usual));
    Optional<AgentSchedule> chosen = jumper.isPresent() ? jumper : candidates.stream().min(usual);
    return chosen.map(r -> new HeadsBoard.Pick(r, ActivationKind.INBOX));
  }

  /**
   * Agents without unread notifications whose fire has come and whose snooze is over, earliest fire
   * first; their minimum activation interval does not hold them back.
   */
  Optional<HeadsBoard.Pick> nextScheduled(Set<String> offered, Instant now) {
    return rows.values().stream()
        .filter(r -> eligible(r, offered, now) && r.unread() == 0)
        .filter(r -> r.nextFireAt() != null && !r.nextFireAt().isAfter(now))
        .min(Comparator.comparing(AgentSchedule::nextFireAt).thenComparing(AgentSchedule::agentId))
        .map(r -> new HeadsBoard.Pick(r, ActivationKind.SCHEDULED));
  }

  Optional<HeadsBoard.Pick> nextStale(Set<String> offered, Instant now) {
    return rows.values().stream()
        .filter(r -> eligible(r, offered, now) && r.unread() == 0)
        .filter(r -> r.lastActivatedAt() == null || !restedUntil(r).isAfter(now))
        .min(
            Comparator.comparing(
                    AgentSchedule::lastActivatedAt,
                    Comparator.nullsFirst(Comparator.naturalOrder()))
                .thenComparing(AgentSchedule::agentId))
        .map(r -> new HeadsBoard.Pick(r, ActivationKind.EXPLORATION));
  }

  /**
   * The earliest instant after {@code now} at which, by time alone, an unleased, unpaused agent
   * that cannot be picked becomes pickable, or an inbox-pickable agent starts to jump the line.
   */
  Optional<Instant> nextEligibilityChange(Instant now) {
    List<Instant> changes = new ArrayList<>();
    for (AgentSchedule r : rows.values()) {
      if (r.leased() || r.paused()) {
        continue;
      }
      boolean snoozed = r.snoozedUntil() != null && r.snoozedUntil().isAfter(now);
      if (r.unread() > 0) {
        if (snoozed) {
          changes.add(r.snoozedUntil());
        } else if (r.oldestUnreadAt() != null && r.oldestUnreadAt().plus(maxWait).isAfter(now)) {
          changes.add(r.oldestUnreadAt().plus(maxWait));
        }
      } else {
        Instant pickable = r.snoozedUntil();
        if (r.lastActivatedAt() != null && (pickable == null || restedUntil(r).isAfter(pickable))) {
          pickable = restedUntil(r);
        }
        if (pickable != null && pickable.isAfter(now)) {
          changes.add(pickable);
        }
      }
    }
    return changes.stream().min(Comparator.naturalOrder());
  }

  SchedulingIndex.Stats stats(Instant now) {
    Set<String> everything = Set.of("code", "web", "gpu", "extra-1", "extra-2");
    int withInbox = 0;
    int leased = 0;
    int paused = 0;
    long unread = 0;
    Instant oldest = null;
    int eligibleInbox = 0;
    int eligibleStale = 0;
    for (AgentSchedule r : rows.values()) {
      if (r.unread() > 0) {
        withInbox++;
        unread += r.unread();
        if (r.oldestUnreadAt() != null && (oldest == null || r.oldestUnreadAt().isBefore(oldest))) {
          oldest = r.oldestUnreadAt();
        }
        if (eligible(r, everything, now)) {
          eligibleInbox++;
        }
      } else if (eligible(r, everything, now)
          && (r.lastActivatedAt() == null || !restedUntil(r).isAfter(now))) {
        eligibleStale++;
      }
      leased += r.leased() ? 1 : 0;
      paused += r.paused() ? 1 : 0;
    }
    return new SchedulingIndex.Stats(
        rows.size(), withInbox, leased, paused, unread, oldest, eligibleInbox, eligibleStale);
  }

  private static boolean eligible(AgentSchedule r, Set<String> offered, Instant now) {
    return !r.leased()
        && !r.paused()
        && (r.snoozedUntil() == null || !r.snoozedUntil().isAfter(now))
        && offered.containsAll(r.capabilities());
  }

  private static Instant restedUntil(AgentSchedule r) {
    return r.lastActivatedAt().plus(r.minActivationInterval());
  }
}
