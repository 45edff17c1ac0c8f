package dev.rota.core.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Schedules in an agent's state: when a fire is due, what a turn serves, what ends it. */
class AgentStateScheduleTest {

  private static final Instant T0 = Instant.parse("2026-11-24T08:59:30Z");
  private static final Schedule EVERY_MINUTE = new Schedule("tick", "* * * * *", "UTC", null);
  private static final Schedule STANDUP =
      new Schedule(
          "daily_standup",
          "0 9 * * *",
          "Europe/Berlin",
          JsonNodeFactory.instance.objectNode().put("task", "standup"));

  private static AgentState registered(Instant at, Schedule... schedules) {
    AgentConfig config = new AgentConfig("a", List.of(), 0, 3600, 100, 3, null, List.of(schedules));
    return AgentState.empty("a").registered(config, at);
  }

  private static Instant at(String time) {
    return Instant.parse("2026-11-24T" + time + "Z");
  }

  private static AgentState granted(AgentState state, Instant now) {
    ScheduleFire fire = state.dueFire(now).orElseThrow();
    Lease lease =
        new Lease(
            Ids.leaseId("a", state.fencingCounter() + 1),
            "r1",
            ActivationKind.SCHEDULED,
            state.fencingCounter() + 1,
            state.nextScheduleAttempt(),
            now,
            now.plusSeconds(60),
            60,
            List.of(),
            fire);
    return state.leaseGranted(lease);
  }

  @Test
  void firstFireIsTheFirstAfterRegistration() {
    AgentState state = registered(T0, EVERY_MINUTE, STANDUP);

    assertEquals(at("09:00:00"), state.nextFires().get("tick"));
    // 09:00 in Berlin is 08:00 UTC: the next one is tomorrow's.
    assertEquals(Instant.parse("2026-11-25T08:00:00Z"), state.nextFires().get("daily_standup"));
    assertEquals(at("09:00:00"), state.nextFireAt());
    assertEquals(Optional.empty(), state.dueFire(T0));
  }

  @Test
  void dueScheduleIsGrantedAsScheduledDespiteTheMinimumInterval() {
    AgentState state = registered(T0, EVERY_MINUTE);
    Instant now = at("09:00:01");
    state = granted(state, now.minusSeconds(1));
    state = state.completed(at("09:00:00.5"));

    assertEquals(
        "min_interval",
        state.eligibility(RunnerMode.EXPLORATION, Set.of(), at("09:00:30")).deniedReason());
    var eligibility = state.eligibility(RunnerMode.EXPLORATION, Set.of(), at("09:01:00"));
    assertEquals(ActivationKind.SCHEDULED, eligibility.kind());
    assertEquals(
        ActivationKind.SCHEDULED,
        state.eligibility(RunnerMode.HYBRID, Set.of(), at("09:01:00")).kind());
    assertFalse(state.eligibility(RunnerMode.NOTIFICATION, Set.of(), at("09:01:00")).granted());
  }

  @Test
  void missedFiresCoalesceIntoOneTurn() {
    AgentState state = registered(T0, EVERY_MINUTE);
    Instant restart = at("09:03:20");

    ScheduleFire fire = state.dueFire(restart).orElseThrow();
    assertEquals(new ScheduleFire("tick", at("09:03:00")), fire);

    AgentState done = granted(state, restart).completed(at("09:03:40"));

    assertEquals(at("09:04:00"), done.nextFireAt());
    assertEquals(Optional.empty(), done.dueFire(at("09:03:59")));
    assertEquals(1, done.activationCount());
    assertEquals(at("09:03:40"), done.lastActivatedAt());
  }

  @Test
  void fireDuringTheLeaseIsDueWhenItEnds() {
    AgentState state = registered(T0, EVERY_MINUTE);
    AgentState leased = granted(state, at("09:00:10"));

    assertEquals(
        "leased", leased.eligibility(RunnerMode.HYBRID, Set.of(), at("09:01:30")).deniedReason());

    AgentState done = leased.completed(at("09:01:30"));
    assertEquals(at("09:01:00"), done.nextFireAt());
    assertEquals(
        ActivationKind.SCHEDULED,
        done.eligibility(RunnerMode.HYBRID, Set.of(), at("09:01:30")).kind());
  }

  @Test
  void pausedAgentWaitsAndThenGetsOneTurn() {
    AgentState state = registered(T0, EVERY_MINUTE).pausedAt(T0, true);

    assertEquals(
        "paused", state.eligibility(RunnerMode.HYBRID, Set.of(), at("09:05:00")).deniedReason());

    state = state.pausedAt(at("09:05:10"), false);
    assertEquals(
        new ScheduleFire("tick", at("09:05:00")), state.dueFire(at("09:05:10")).orElseThrow());
  }

  @Test
  void unreadNotificationsAreServedFirst() {
    AgentState state =
        registered(T0, EVERY_MINUTE)
            .notified(new Notification("n1", "mention", null, null, T0, 0), Duration.ofMinutes(5));

    assertEquals(
        ActivationKind.INBOX,
        state.eligibility(RunnerMode.HYBRID, Set.of(), at("09:01:00")).kind());
    assertEquals(
        "has_inbox",
        state.eligibility(RunnerMode.EXPLORATION, Set.of(), at("09:01:00")).deniedReason());
  }

  @Test
  void retryKeepsTheFireDueUntilAttemptsRunOut() {
    AgentState state = registered(T0, EVERY_MINUTE);
    Instant now = at("09:00:10");
    for (int attempt = 1; attempt <= 2; attempt++) {
      state = granted(state, now);
      assertEquals(attempt, state.lease().attempt());
      state = state.failed(FailureAction.RETRY, "boom", now, null, "activation.failed");
      assertEquals(at("09:00:00"), state.nextFireAt());
    }
    state = granted(state, now).failed(FailureAction.RETRY, "boom", now, null, "activation.failed");

    assertEquals(at("09:01:00"), state.nextFireAt());
    assertEquals("2026-11-24T09:00:00Z", state.history().get(0).details().get("scheduleDropped"));
    assertEquals(1, state.nextScheduleAttempt());
  }

  @Test
  void snoozeKeepsTheFireAndDefersIt() {
    AgentState state = registered(T0, EVERY_MINUTE);
    Instant now = at("09:00:10");
    state =
        granted(state, now)
            .failed(FailureAction.SNOOZE, "later", now, now.plusSeconds(60), "activation.failed");

    assertEquals(at("09:00:00"), state.nextFireAt());
    assertEquals(
        "snoozed", state.eligibility(RunnerMode.HYBRID, Set.of(), at("09:00:30")).deniedReason());
  }

  @Test
  void updateKeepsAnUnchangedScheduleAndRestartsAChangedOne() {
    AgentState state = registered(T0, EVERY_MINUTE, STANDUP);
    Instant later = at("09:05:10");
    Schedule changedStandup = new Schedule("daily_standup", "30 9 * * *", "UTC", null);
    AgentConfig config =
        new AgentConfig("a", List.of(), 0, 0, 100, 3, null, List.of(EVERY_MINUTE, changedStandup));

    AgentState updated = state.configured(config, later);

    assertEquals(at("09:00:00"), updated.nextFires().get("tick"));
    assertEquals(at("09:30:00"), updated.nextFires().get("daily_standup"));
    AgentState removed =
        updated.configured(new AgentConfig("a", List.of(), 0, 0, 100, 3, null), later);
    assertTrue(removed.nextFires().isEmpty());
    assertNull(removed.nextFireAt());
  }

  @Test
  void scheduledTurnIsInTheHistory() {
    AgentState state = granted(registered(T0, EVERY_MINUTE), at("09:02:00"));

    HistoryEntry entry = state.history().get(0);
    assertEquals("lease.granted", entry.type());
    assertEquals("scheduled", entry.details().get("kind"));
    assertEquals("tick", entry.details().get("schedule"));
    assertEquals("2026-11-24T09:02:00Z", entry.details().get("firedAt"));
  }

  @Test
  void cronAndZoneProblemsAreNamed() {
    assertTrue(Schedule.cronProblem("0 9 * *").isPresent());
    assertTrue(Schedule.cronProblem("61 * * * *").isPresent());
    assertTrue(Schedule.cronProblem("0 0 30 2 *").orElseThrow().contains("never"));
    assertEquals(Optional.empty(), Schedule.cronProblem("0 9 * * MON-FRI"));
    assertTrue(Schedule.timezoneProblem("Mars/Olympus").isPresent());
    assertTrue(Schedule.timezoneProblem("+02:00").isPresent());
    assertEquals(Optional.empty(), Schedule.timezoneProblem("Europe/Berlin"));
  }
}
