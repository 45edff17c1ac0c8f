package dev.rota.core.scheduling;

import static dev.rota.core.scheduling.Agents.T0;
import static dev.rota.core.scheduling.Agents.agent;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.core.model.RunnerMode;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Who may be picked at all: snooze, pause, lease, capabilities, and the index's own updates. */
class SchedulingIndexEligibilityTest {

  private final SchedulingIndex index = new SchedulingIndex(Duration.ofMinutes(10));
  private final IndexRule rule = new IndexRule(index);

  private String picked(RunnerMode mode, Set<String> offered, Instant now) {
    return rule.next(mode, offered, now).map(p -> p.agent().agentId()).orElse(null);
  }

  private String picked(RunnerMode mode) {
    return picked(mode, Set.of(), T0);
  }

  /** Picks and marks leased until nothing is left, as a coordinator serving one runner would. */
  private Set<String> drain(RunnerMode mode, Set<String> offered) {
    Set<String> got = new HashSet<>();
    for (String id = picked(mode, offered, T0); id != null; id = picked(mode, offered, T0)) {
      assertTrue(got.add(id), "picked twice: " + id);
      rule.markLeased(id);
    }
    return got;
  }

  @Test
  void snoozedAgentIsExcludedUntilSnoozedUntilThenEligible() {
    Instant wakeUp = T0.plusSeconds(60);
    index.upsert(agent("inbox").unread(2, T0).snoozedUntil(wakeUp).build());
    index.upsert(agent("idle").snoozedUntil(wakeUp).build());

    assertNull(picked(RunnerMode.HYBRID, Set.of(), T0));
    assertNull(picked(RunnerMode.HYBRID, Set.of(), wakeUp.minusNanos(1)));
    assertEquals("inbox", picked(RunnerMode.NOTIFICATION, Set.of(), wakeUp));
    assertEquals("idle", picked(RunnerMode.EXPLORATION, Set.of(), wakeUp));
  }

  @Test
  void snoozeInThePastDoesNotExclude() {
    index.upsert(agent("a").snoozedUntil(T0.minusSeconds(1)).build());

    assertEquals("a", picked(RunnerMode.EXPLORATION));
  }

  @Test
  void snoozedAgentWithoutInboxAlsoWaitsForItsMinActivationInterval() {
    index.upsert(
        agent("a")
            .lastActivatedAt(T0)
            .minActivationInterval(Duration.ofMinutes(30))
            .snoozedUntil(T0.plus(Duration.ofMinutes(5)))
            .build());

    assertNull(picked(RunnerMode.EXPLORATION, Set.of(), T0.plus(Duration.ofMinutes(5))));
    assertEquals("a", picked(RunnerMode.EXPLORATION, Set.of(), T0.plus(Duration.ofMinutes(30))));
  }

  @Test
  void pausedAgentIsExcluded() {
    index.upsert(agent("inbox").unread(5, T0).paused().build());
    index.upsert(agent("idle").paused().build());

    assertNull(picked(RunnerMode.HYBRID));
    assertNull(picked(RunnerMode.EXPLORATION));
  }

  @Test
  void leasedAgentIsExcluded() {
    index.upsert(agent("inbox").unread(5, T0).leased().build());
    index.upsert(agent("idle").leased().build());

    assertNull(picked(RunnerMode.HYBRID));
    assertNull(picked(RunnerMode.EXPLORATION));
  }

  @Test
  void markLeasedExcludesUntilAnUpsertClearsTheLease() {
    index.upsert(agent("a").unread(1, T0).build());
    rule.markLeased("a");

    assertNull(picked(RunnerMode.HYBRID));
    assertTrue(index.get("a").orElseThrow().leased());

    index.upsert(agent("a").unread(1, T0).build());
    assertEquals("a", picked(RunnerMode.HYBRID));
  }

  @Test
  void markLeasedOnUnknownOrLeasedAgentIsIgnored() {
    rule.markLeased("ghost");
    index.upsert(agent("a").leased().build());
    rule.markLeased("a");

    assertEquals(1, index.size());
    assertEquals(1, index.stats(T0).leased());
  }

  @Test
  void markLeasedSnoozedAgentStaysOutAfterTheSnoozeEnds() {
    index.upsert(agent("a").snoozedUntil(T0.plusSeconds(5)).build());
    rule.markLeased("a");

    assertNull(picked(RunnerMode.EXPLORATION, Set.of(), T0.plusSeconds(10)));
  }

  @Test
  void agentRequiringCodeIsNotGivenToRunnerOfferingNothing() {
    index.upsert(agent("coder").requires("code").unread(3, T0).build());
    index.upsert(agent("idle-coder").requires("code").build());

    for (RunnerMode mode : RunnerMode.values()) {
      assertNull(picked(mode, Set.of(), T0));
    }
    assertEquals("coder", picked(RunnerMode.HYBRID, Set.of("code"), T0));
  }

  @Test
  void runnerOfferingCodeAndWebGetsAgentsRequiringAnySubsetOfThem() {
    index.upsert(agent("none").build());
    index.upsert(agent("code").requires("code").build());
    index.upsert(agent("web").requires("web").build());
    index.upsert(agent("both").requires("code", "web").build());
    index.upsert(agent("gpu").requires("gpu").build());
    index.upsert(agent("code-gpu").requires("code", "gpu").build());

    assertEquals(
        Set.of("none", "code", "web", "both"),
        drain(RunnerMode.EXPLORATION, Set.of("code", "web")));
  }

  @Test
  void runnerOfferingOnlyWebGetsOnlyAgentsItCanServe() {
    index.upsert(agent("none").unread(1, T0).build());
    index.upsert(agent("code").requires("code").unread(9, T0).build());
    index.upsert(agent("web").requires("web").unread(1, T0).build());
    index.upsert(agent("both").requires("code", "web").unread(9, T0).build());

    assertEquals(Set.of("none", "web"), drain(RunnerMode.NOTIFICATION, Set.of("web")));
  }

  @Test
  void bestAgentAcrossCapabilityGroupsWins() {
    index.upsert(agent("plain").unread(2, T0).build());
    index.upsert(agent("coder").requires("code").unread(4, T0).build());
    index.upsert(agent("webber").requires("web").unread(3, T0).build());

    List<String> order = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      String id = picked(RunnerMode.NOTIFICATION, Set.of("code", "web", "gpu"), T0);
      order.add(id);
      rule.markLeased(id);
    }
    assertEquals(List.of("coder", "webber", "plain"), order);
  }

  @Test
  void upsertReplacesTheAgentsRow() {
    index.upsert(agent("a").lastActivatedAt(T0.minusSeconds(60)).build());
    assertEquals("a", picked(RunnerMode.EXPLORATION));

    index.upsert(agent("a").unread(2, T0).build());

    assertEquals(1, index.size());
    assertEquals(2, index.get("a").orElseThrow().unread());
    assertNull(picked(RunnerMode.EXPLORATION));
    assertEquals("a", picked(RunnerMode.NOTIFICATION));
  }

  @Test
  void upsertMovesAgentBetweenCapabilityGroups() {
    index.upsert(agent("a").requires("code").unread(1, T0).build());
    assertEquals("a", picked(RunnerMode.NOTIFICATION, Set.of("code"), T0));

    index.upsert(agent("a").requires("gpu").unread(1, T0).build());

    assertNull(picked(RunnerMode.NOTIFICATION, Set.of("code"), T0));
    assertEquals("a", picked(RunnerMode.NOTIFICATION, Set.of("gpu"), T0));
    assertEquals(Set.of("gpu"), index.get("a").orElseThrow().capabilities());
  }

  @Test
  void agentsWithEqualCapabilitySetsShareOneSetInstance() {
    index.upsert(agent("a").requires("code", "web").build());
    index.upsert(agent("b").requires("web", "code").build());

    assertSame(
        index.get("a").orElseThrow().capabilities(), index.get("b").orElseThrow().capabilities());
  }

  @Test
  void removeForgetsTheAgent() {
    index.upsert(agent("a").unread(1, T0).build());
    index.upsert(agent("b").snoozedUntil(T0.plusSeconds(30)).build());

    index.remove("a");
    index.remove("b");
    index.remove("ghost");

    assertEquals(0, index.size());
    assertTrue(index.get("a").isEmpty());
    assertNull(picked(RunnerMode.HYBRID, Set.of(), T0.plusSeconds(60)));
    assertTrue(index.nextEligibilityChange(T0).isEmpty());
  }

  @Test
  void agentCanBeRegisteredAgainAfterRemoval() {
    index.upsert(agent("a").requires("code").build());
    index.remove("a");
    index.upsert(agent("a").requires("code").build());

    assertEquals("a", picked(RunnerMode.EXPLORATION, Set.of("code"), T0));
  }

  @Test
  void anEarlierNowIsAnsweredAsOfTheLatestNowSeen() {
    index.upsert(agent("a").snoozedUntil(T0.plusSeconds(60)).build());
    assertEquals("a", picked(RunnerMode.EXPLORATION, Set.of(), T0.plusSeconds(60)));

    assertEquals("a", picked(RunnerMode.EXPLORATION, Set.of(), T0));
  }

  @Test
  void rejectsNegativeMaxWait() {
    assertThrows(IllegalArgumentException.class, () -> new SchedulingIndex(Duration.ofSeconds(-1)));
  }

  @Test
  void getReturnsTheStoredRow() {
    AgentSchedule row = agent("a").requires("code").priority(3).build();
    index.upsert(row);

    assertEquals(row, index.get("a").orElseThrow());
    assertFalse(index.get("b").isPresent());
  }
}
