package dev.rota.core.scheduling;

import static dev.rota.core.scheduling.Agents.T0;
import static dev.rota.core.scheduling.Agents.agent;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.core.model.ActivationKind;
import dev.rota.core.model.RunnerMode;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Scheduled turns in the rule (decision 33, ADR-011): after the inbox, before staleness. */
class SchedulingIndexScheduledTest {

  private static final Duration MAX_WAIT = Duration.ofMinutes(10);
  private static final Set<String> NOTHING = Set.of();

  private final SchedulingIndex index = new SchedulingIndex(MAX_WAIT);
  private final IndexRule rule = new IndexRule(index);

  private static Instant minutes(long m) {
    return T0.plus(Duration.ofMinutes(m));
  }

  private Optional<HeadsBoard.Pick> pick(RunnerMode mode, Instant now) {
    return rule.next(mode, NOTHING, now);
  }

  private String picked(RunnerMode mode, Instant now) {
    return pick(mode, now).map(p -> p.agent().agentId() + "/" + p.kind().wireName()).orElse(null);
  }

  @Test
  void hybridRunnerGetsInboxThenScheduledThenStale() {
    index.upsert(agent("stale").build());
    index.upsert(agent("due").lastActivatedAt(minutes(-1)).nextFireAt(minutes(-5)).build());
    index.upsert(agent("inbox").unread(1, minutes(-1)).lastActivatedAt(minutes(-2)).build());

    assertEquals("inbox/inbox", picked(RunnerMode.HYBRID, T0));
    rule.markLeased("inbox");
    assertEquals("due/scheduled", picked(RunnerMode.HYBRID, T0));
    rule.markLeased("due");
    assertEquals("stale/exploration", picked(RunnerMode.HYBRID, T0));
  }

  @Test
  void explorationRunnerGetsScheduledBeforeTheStalest() {
    index.upsert(agent("never-run").build());
    index.upsert(agent("due").lastActivatedAt(minutes(-1)).nextFireAt(minutes(-1)).build());

    assertEquals("due/scheduled", picked(RunnerMode.EXPLORATION, T0));
  }

  @Test
  void notificationRunnerNeverGetsScheduledTurns() {
    index.upsert(agent("due").nextFireAt(minutes(-1)).build());

    assertEquals(Optional.empty(), pick(RunnerMode.NOTIFICATION, T0));
  }

  @Test
  void scheduleIsNotDueBeforeItsFireTime() {
    index.upsert(agent("a").lastActivatedAt(minutes(-1)).nextFireAt(minutes(5)).build());
    index.upsert(agent("b").lastActivatedAt(minutes(-2)).build());

    assertEquals("b/exploration", picked(RunnerMode.EXPLORATION, T0));
    assertEquals(Optional.of(minutes(5)), index.nextEligibilityChange(T0));
    assertEquals("a/scheduled", picked(RunnerMode.EXPLORATION, minutes(5)));
  }

  @Test
  void minActivationIntervalDoesNotHoldBackAScheduledTurn() {
    index.upsert(
        agent("a")
            .lastActivatedAt(minutes(-1))
            .minActivationInterval(Duration.ofHours(6))
            .nextFireAt(minutes(-1))
            .build());

    assertEquals("a/scheduled", picked(RunnerMode.EXPLORATION, T0));
  }

  @Test
  void restingAgentIsNotStaleWorkUntilItsScheduleFires() {
    index.upsert(
        agent("a")
            .lastActivatedAt(minutes(-1))
            .minActivationInterval(Duration.ofHours(6))
            .nextFireAt(minutes(30))
            .build());

    assertEquals(Optional.empty(), pick(RunnerMode.HYBRID, T0));
    assertEquals(Optional.of(minutes(30)), index.nextEligibilityChange(T0));
    assertEquals("a/scheduled", picked(RunnerMode.HYBRID, minutes(30)));
  }

  @Test
  void pausedAndLeasedAgentsAreNotScheduled() {
    index.upsert(agent("paused").nextFireAt(minutes(-1)).paused().build());
    index.upsert(agent("leased").nextFireAt(minutes(-1)).leased().build());

    assertEquals(Optional.empty(), pick(RunnerMode.EXPLORATION, T0));
    assertEquals(Optional.empty(), index.nextEligibilityChange(T0));
  }

  @Test
  void fireWhileLeasedWaitsForTheLeaseToEnd() {
    AgentSchedule leased = agent("a").nextFireAt(minutes(1)).leased().build();
    index.upsert(leased);
    assertEquals(Optional.empty(), pick(RunnerMode.EXPLORATION, minutes(2)));

    index.upsert(leased.withLeased(false));

    assertEquals("a/scheduled", picked(RunnerMode.EXPLORATION, minutes(2)));
  }

  @Test
  void snoozeDefersADueSchedule() {
    index.upsert(agent("a").nextFireAt(minutes(-1)).snoozedUntil(minutes(3)).build());

    assertEquals(Optional.empty(), pick(RunnerMode.EXPLORATION, T0));
    assertEquals(Optional.of(minutes(3)), index.nextEligibilityChange(T0));
    assertEquals("a/scheduled", picked(RunnerMode.EXPLORATION, minutes(3)));
  }

  @Test
  void unreadNotificationsGoFirstAndTheScheduleWaits() {
    AgentSchedule withInbox = agent("a").unread(2, minutes(-1)).nextFireAt(minutes(-1)).build();
    index.upsert(withInbox);

    assertEquals(Optional.empty(), pick(RunnerMode.EXPLORATION, T0));
    assertEquals("a/inbox", picked(RunnerMode.HYBRID, T0));

    index.upsert(agent("a").lastActivatedAt(T0).nextFireAt(minutes(-1)).build());
    assertEquals("a/scheduled", picked(RunnerMode.HYBRID, T0));
  }

  @Test
  void earliestFireGoesFirst() {
    index.upsert(agent("late").nextFireAt(minutes(-1)).build());
    index.upsert(agent("early").nextFireAt(minutes(-9)).build());

    assertEquals("early/scheduled", picked(RunnerMode.HYBRID, T0));
  }

  @Test
  void capabilitiesStillDecide() {
    index.upsert(agent("gpu").requires("gpu").nextFireAt(minutes(-1)).build());

    assertEquals(Optional.empty(), rule.next(RunnerMode.HYBRID, Set.of("code"), T0));
    assertEquals(
        ActivationKind.SCHEDULED,
        rule.next(RunnerMode.HYBRID, Set.of("gpu"), T0).orElseThrow().kind());
  }

  @Test
  void servedScheduleLeavesTheScheduledView() {
    index.upsert(agent("a").nextFireAt(minutes(-1)).build());
    assertEquals(1, rule.eligibleScheduled(T0));

    index.upsert(agent("a").lastActivatedAt(T0).nextFireAt(minutes(60)).build());

    assertEquals(0, rule.eligibleScheduled(T0));
    assertEquals("a/exploration", picked(RunnerMode.EXPLORATION, T0));
    index.remove("a");
    assertEquals(Optional.empty(), index.nextEligibilityChange(T0));
  }

  @Test
  void pickOrderRanksScheduledBetweenInboxAndExploration() {
    var inbox = new HeadsBoard.Pick(agent("i").unread(1, T0).build(), ActivationKind.INBOX);
    var late =
        new HeadsBoard.Pick(agent("s2").nextFireAt(minutes(-1)).build(), ActivationKind.SCHEDULED);
    var early =
        new HeadsBoard.Pick(agent("s1").nextFireAt(minutes(-5)).build(), ActivationKind.SCHEDULED);
    var stale = new HeadsBoard.Pick(agent("x").build(), ActivationKind.EXPLORATION);
    Comparator<HeadsBoard.Pick> order = PickOrder.at(T0, MAX_WAIT);

    List<HeadsBoard.Pick> sorted =
        List.of(stale, late, inbox, early).stream().sorted(order).toList();

    assertEquals(List.of(inbox, early, late, stale), sorted);
    assertTrue(order.compare(early, stale) < 0);
  }
}
