package dev.rota.core.scheduling;

import static dev.rota.core.scheduling.Agents.T0;
import static dev.rota.core.scheduling.Agents.agent;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.rota.core.model.RunnerMode;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** When the rule's answer over the index may change by time alone, and the index's counts. */
class SchedulingIndexTimeTest {

  private static final Duration MAX_WAIT = Duration.ofMinutes(10);

  private final SchedulingIndex index = new SchedulingIndex(MAX_WAIT);
  private final IndexRule rule = new IndexRule(index);

  private static Instant at(long minutes) {
    return T0.plus(Duration.ofMinutes(minutes));
  }

  @Test
  void nextEligibilityChangeIsEmptyWhenOnlyUpdatesCanChangeTheAnswer() {
    index.upsert(agent("idle").build());
    index.upsert(agent("leased").unread(1, at(0)).leased().build());
    index.upsert(agent("paused").snoozedUntil(at(5)).paused().build());

    assertEquals(Optional.empty(), index.nextEligibilityChange(at(0)));
  }

  @Test
  void nextEligibilityChangeReportsTheEndOfASnooze() {
    index.upsert(agent("a").unread(1, at(0)).snoozedUntil(at(30)).build());
    index.upsert(agent("b").snoozedUntil(at(20)).build());

    assertEquals(Optional.of(at(20)), index.nextEligibilityChange(at(0)));
  }

  @Test
  void nextEligibilityChangeReportsTheEndOfAMinActivationInterval() {
    index.upsert(
        agent("a").lastActivatedAt(at(0)).minActivationInterval(Duration.ofMinutes(45)).build());

    assertEquals(Optional.of(at(45)), index.nextEligibilityChange(at(1)));
  }

  @Test
  void idleSnoozedAgentBecomesEligibleAtTheLaterOfSnoozeAndInterval() {
    index.upsert(
        agent("a")
            .lastActivatedAt(at(0))
            .minActivationInterval(Duration.ofMinutes(45))
            .snoozedUntil(at(15))
            .build());

    assertEquals(Optional.of(at(45)), index.nextEligibilityChange(at(0)));
  }

  @Test
  void minActivationIntervalIsNoWaitForAnAgentWithInbox() {
    index.upsert(
        agent("a")
            .unread(1, at(0))
            .lastActivatedAt(at(0))
            .minActivationInterval(Duration.ofMinutes(45))
            .snoozedUntil(at(15))
            .build());

    assertEquals(Optional.of(at(15)), index.nextEligibilityChange(at(0)));
  }

  @Test
  void nextEligibilityChangeReportsWhenANotificationReachesMaxWait() {
    index.upsert(agent("a").unread(1, at(0)).build());
    index.upsert(agent("b").unread(1, at(3)).build());

    assertEquals(Optional.of(at(10)), index.nextEligibilityChange(at(1)));
    // At the crossing the first agent jumps already; the next change is the second one's.
    assertEquals(Optional.of(at(13)), index.nextEligibilityChange(at(10)));
    assertEquals(Optional.empty(), index.nextEligibilityChange(at(13)));
  }

  @Test
  void nextEligibilityChangeTakesTheEarliestOfAllKinds() {
    index.upsert(agent("inbox").unread(1, at(0)).build());
    index.upsert(agent("snoozed").snoozedUntil(at(7)).build());
    index.upsert(
        agent("resting")
            .lastActivatedAt(at(0))
            .minActivationInterval(Duration.ofMinutes(8))
            .build());

    assertEquals(Optional.of(at(7)), index.nextEligibilityChange(at(0)));
    assertEquals(Optional.of(at(8)), index.nextEligibilityChange(at(7)));
    assertEquals(Optional.of(at(10)), index.nextEligibilityChange(at(8)));
  }

  @Test
  void waitingForTheReportedInstantMakesTheAgentPickable() {
    index.upsert(agent("a").snoozedUntil(at(20)).build());

    Instant wake = index.nextEligibilityChange(at(0)).orElseThrow();

    assertNull(rule.next(RunnerMode.EXPLORATION, Set.of(), wake.minusNanos(1)).orElse(null));
    assertEquals(
        "a", rule.next(RunnerMode.EXPLORATION, Set.of(), wake).orElseThrow().agent().agentId());
  }

  @Test
  void statsCountAgentsByState() {
    index.upsert(agent("inbox").unread(3, at(-5)).build());
    index.upsert(agent("inbox-leased").unread(2, at(-9)).leased().build());
    index.upsert(agent("inbox-paused").unread(1, at(-1)).paused().build());
    index.upsert(agent("idle").build());
    index.upsert(agent("idle-snoozed").snoozedUntil(at(5)).build());
    index.upsert(
        agent("idle-resting")
            .requires("gpu")
            .lastActivatedAt(at(0))
            .minActivationInterval(Duration.ofMinutes(2))
            .build());

    SchedulingIndex.Stats now = index.stats(at(0));
    assertEquals(new SchedulingIndex.Stats(6, 3, 1, 1, 6, at(-9), 1, 1), now);

    SchedulingIndex.Stats later = index.stats(at(5));
    assertEquals(3, later.eligibleStale());
  }

  @Test
  void statsOfAnEmptyIndexHaveNoOldestUnread() {
    assertEquals(new SchedulingIndex.Stats(0, 0, 0, 0, 0, null, 0, 0), index.stats(at(0)));
  }

  @Test
  void statsFollowUpdatesAndRemovals() {
    index.upsert(agent("a").unread(3, at(-5)).build());
    index.upsert(agent("b").unread(2, at(-2)).build());
    index.upsert(agent("a").unread(1, at(-1)).build());
    index.remove("b");

    SchedulingIndex.Stats stats = index.stats(at(0));
    assertEquals(1, stats.registered());
    assertEquals(1, stats.withInbox());
    assertEquals(1, stats.unreadTotal());
    assertEquals(at(-1), stats.oldestUnreadAt());
  }
}
