package dev.rota.core.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.core.model.AgentExplanation.Block;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Each reason explain gives, alone, with when it ends. */
class AgentExplanationTest {
  private static final Instant NOW = Instant.parse("2026-11-23T12:00:00Z");

  private static AgentSummary agent(
      int unread,
      Lease lease,
      Instant lastActivatedAt,
      long minIntervalSeconds,
      Instant snoozedUntil,
      boolean paused) {
    AgentConfig config =
        new AgentConfig("a1", List.of("code"), 0, minIntervalSeconds, 100, 3, null);
    return new AgentSummary(
        "a1",
        true,
        config,
        unread,
        unread > 0 ? NOW.minusSeconds(30) : null,
        0,
        lease,
        lastActivatedAt,
        lastActivatedAt == null ? 0 : 1,
        snoozedUntil,
        paused,
        List.of());
  }

  private static AgentSummary idle() {
    return agent(0, null, null, 0, null, false);
  }

  private static List<String> reasons(List<Block> blocks) {
    return blocks.stream().map(Block::reason).toList();
  }

  @Test
  void anIdleAgentWithAFittingRunnerIsEligibleInTheStalenessOrder() {
    assertEquals(List.of(), AgentExplanation.blockedBy(idle(), NOW, false, true));
    assertTrue(AgentExplanation.inStalenessOrder(idle(), NOW));
    assertFalse(AgentExplanation.inInboxOrder(idle(), NOW));
  }

  @Test
  void anUnregisteredAgentIsNotRegisteredAndNothingElse() {
    assertEquals(
        List.of("not_registered"), reasons(AgentExplanation.blockedBy(null, NOW, true, false)));
  }

  @Test
  void aLeasedAgentWaitsUntilTheLeaseExpires() {
    Instant expires = NOW.plusSeconds(60);
    Lease lease =
        new Lease("YTE.1-x", "r1", ActivationKind.INBOX, 1, 1, NOW, expires, 60, List.of("n1"));
    List<Block> blocks =
        AgentExplanation.blockedBy(agent(1, lease, null, 0, null, false), NOW, false, true);
    assertEquals(List.of("leased"), reasons(blocks));
    assertEquals(expires, blocks.get(0).until());
    assertTrue(blocks.get(0).detail().contains("r1"));
    assertFalse(AgentExplanation.inInboxOrder(agent(1, lease, null, 0, null, false), NOW));
  }

  @Test
  void aSnoozedAgentWaitsUntilItsSnoozeEnds() {
    Instant until = NOW.plusSeconds(90);
    List<Block> blocks =
        AgentExplanation.blockedBy(agent(2, null, null, 0, until, false), NOW, false, true);
    assertEquals(List.of("snoozed"), reasons(blocks));
    assertEquals(until, blocks.get(0).until());
    assertEquals(
        List.of(),
        AgentExplanation.blockedBy(
            agent(2, null, null, 0, NOW.minusSeconds(1), false), NOW, false, true));
  }

  @Test
  void aDebouncingAgentWaitsUntilItsBurstPaused() {
    Instant until = NOW.plusMillis(400);
    AgentConfig config =
        new AgentConfig(
            "a1", List.of("code"), 0, 0, 100, 3, null, List.of(), NewInput.QUEUE, 500, 0);
    AgentSummary debouncing =
        new AgentSummary(
            "a1",
            true,
            config,
            3,
            NOW.minusSeconds(1),
            0,
            null,
            null,
            0,
            null,
            false,
            List.of(),
            java.util.Map.of(),
            until);
    List<Block> blocks = AgentExplanation.blockedBy(debouncing, NOW, false, true);
    assertEquals(List.of("debouncing"), reasons(blocks));
    assertEquals(until, blocks.get(0).until());
    assertTrue(blocks.get(0).detail().contains("500 ms"), blocks.get(0).detail());
    assertFalse(AgentExplanation.inInboxOrder(debouncing, NOW));
    assertEquals(List.of(), AgentExplanation.blockedBy(debouncing, until, false, true));
    assertTrue(AgentExplanation.inInboxOrder(debouncing, until));
  }

  @Test
  void theMinimumIntervalHoldsBackStalenessWorkOnly() {
    Instant last = NOW.minusSeconds(100);
    List<Block> blocks =
        AgentExplanation.blockedBy(agent(0, null, last, 300, null, false), NOW, false, true);
    assertEquals(List.of("min_interval"), reasons(blocks));
    assertEquals(last.plusSeconds(300), blocks.get(0).until());
    assertFalse(AgentExplanation.inStalenessOrder(agent(0, null, last, 300, null, false), NOW));
    // With unread work the interval does not apply.
    assertEquals(
        List.of(),
        AgentExplanation.blockedBy(agent(1, null, last, 300, null, false), NOW, false, true));
    assertTrue(AgentExplanation.inInboxOrder(agent(1, null, last, 300, null, false), NOW));
  }

  @Test
  void aDueScheduleIsNotHeldBackByTheMinimumInterval() {
    Instant last = NOW.minusSeconds(100);
    AgentSummary resting = agent(0, null, last, 300, null, false);
    AgentSummary due = withFire(resting, NOW.minusSeconds(5));
    AgentSummary notYet = withFire(resting, NOW.plusSeconds(5));

    assertEquals(List.of(), AgentExplanation.blockedBy(due, NOW, false, true));
    assertTrue(AgentExplanation.inScheduledOrder(due, NOW));
    assertTrue(due.scheduleDue(NOW));
    assertEquals(
        List.of("min_interval"), reasons(AgentExplanation.blockedBy(notYet, NOW, false, true)));
    assertFalse(AgentExplanation.inScheduledOrder(notYet, NOW));
    // Unread work goes first: the schedule waits for the inbox turn.
    assertFalse(
        AgentExplanation.inScheduledOrder(
            withFire(agent(1, null, last, 300, null, false), NOW.minusSeconds(5)), NOW));
  }

  private static AgentSummary withFire(AgentSummary a, Instant fire) {
    return new AgentSummary(
        a.agentId(),
        a.registered(),
        a.config(),
        a.unread(),
        a.oldestUnreadAt(),
        a.deadLetters(),
        a.lease(),
        a.lastActivatedAt(),
        a.activationCount(),
        a.snoozedUntil(),
        a.paused(),
        a.history(),
        java.util.Map.of("tick", fire));
  }

  private static AgentSummary owing(AgentSummary a, int unread, int waitingCalls) {
    return new AgentSummary(
        a.agentId(),
        a.registered(),
        a.config(),
        unread,
        unread > 0 ? NOW.minusSeconds(30) : null,
        a.deadLetters(),
        a.lease(),
        a.lastActivatedAt(),
        a.activationCount(),
        a.snoozedUntil(),
        a.paused(),
        a.history(),
        a.nextFires(),
        null,
        List.of(),
        null,
        List.of(new CallInfo("c1", new CallInfo.Party("default", "caller"), 1)),
        waitingCalls);
  }

  @Test
  void anAgentThatOwesCallsAndWaitsForRepliesIsAwaitingReplies() {
    List<Block> blocks = AgentExplanation.blockedBy(owing(idle(), 0, 1), NOW, false, true);
    assertEquals(List.of("awaiting_replies"), reasons(blocks));
    assertTrue(blocks.get(0).detail().contains("owes 1"), blocks.get(0).detail());
    // Owing without waiting, or with something unread, is no reason.
    assertEquals(List.of(), AgentExplanation.blockedBy(owing(idle(), 0, 0), NOW, false, true));
    assertEquals(List.of(), AgentExplanation.blockedBy(owing(idle(), 1, 1), NOW, false, true));
  }

  @Test
  void aPausedAgentAndAPausedSystemAreSeparateReasons() {
    assertEquals(
        List.of("paused"),
        reasons(AgentExplanation.blockedBy(agent(0, null, null, 0, null, true), NOW, false, true)));
    assertEquals(
        List.of("system_paused"), reasons(AgentExplanation.blockedBy(idle(), NOW, true, true)));
    assertEquals(
        List.of("system_paused", "paused"),
        reasons(AgentExplanation.blockedBy(agent(0, null, null, 0, null, true), NOW, true, true)));
  }

  @Test
  void noFittingRunnerNamesTheCapabilitiesNoOneOffers() {
    List<Block> blocks = AgentExplanation.blockedBy(idle(), NOW, false, false);
    assertEquals(List.of("no_runner_with_capabilities"), reasons(blocks));
    assertTrue(blocks.get(0).detail().contains("code"), blocks.get(0).detail());
  }

  @Test
  void aTenantAtItsCapOrItsRateIsAReasonWithUntilOnlyForTheRate() {
    var atCap = new AgentExplanation.TenantLoad("acme", 2, 2, 7, null, null);
    List<Block> cap = AgentExplanation.blockedBy(idle(), NOW, false, true, atCap);
    assertEquals(List.of("tenant_cap"), reasons(cap));
    assertEquals(null, cap.get(0).until());
    assertTrue(cap.get(0).detail().contains("acme"), cap.get(0).detail());

    Instant until = NOW.plusSeconds(12);
    var atRate = new AgentExplanation.TenantLoad("acme", 1, 2, 60, 60, until);
    List<Block> rate = AgentExplanation.blockedBy(idle(), NOW, false, true, atRate);
    assertEquals(List.of("tenant_rate"), reasons(rate));
    assertEquals(until, rate.get(0).until());

    var both = new AgentExplanation.TenantLoad("acme", 2, 2, 60, 60, until);
    assertEquals(
        List.of("tenant_cap", "tenant_rate"),
        reasons(AgentExplanation.blockedBy(idle(), NOW, false, true, both)));
  }

  @Test
  void aTenantBelowItsCapsOrUncappedIsNoReason() {
    var below = new AgentExplanation.TenantLoad("acme", 1, 2, 59, 60, null);
    assertEquals(List.of(), AgentExplanation.blockedBy(idle(), NOW, false, true, below));
    assertEquals(List.of(), AgentExplanation.blockedBy(idle(), NOW, false, true, null));
    var rateOver = new AgentExplanation.TenantLoad("acme", 0, null, 3, 3, NOW.minusSeconds(1));
    assertEquals(List.of(), AgentExplanation.blockedBy(idle(), NOW, false, true, rateOver));
  }
}
