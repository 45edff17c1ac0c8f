package dev.rota.faults.check;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.faults.history.Event;
import dev.rota.faults.history.Event.ClockSkew;
import dev.rota.faults.history.Event.CompleteAttempt;
import dev.rota.faults.history.Event.DeadLetter;
import dev.rota.faults.history.Event.Fault;
import dev.rota.faults.history.Event.FinalInbox;
import dev.rota.faults.history.Event.Granted;
import dev.rota.faults.history.Event.Outcome;
import dev.rota.faults.history.Event.Placement;
import dev.rota.faults.history.Event.Published;
import dev.rota.faults.history.Event.Renewed;
import dev.rota.faults.history.History;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The checker against hand-made histories: a clean one passes, and each corruption fails exactly
 * the check meant to catch it.
 */
class HistoryCheckerTest {

  /** Two agents, two keys each, every one acknowledged once and completed once; a fault. */
  private static List<Event> clean() {
    List<Event> h = new ArrayList<>();
    h.add(published("a", "a-0", 1_000, Outcome.OK, "n1"));
    h.add(published("a", "a-1", 1_100, Outcome.OK, "n2"));
    h.add(published("b", "b-0", 1_200, Outcome.OK, "n3"));
    h.add(granted("L1", "a", 2_000, 7_000, "a-0", "a-1"));
    h.add(new Renewed("L1", 2_100, 2_150, Outcome.OK, 7_100));
    h.add(new CompleteAttempt("L1", "a", 1, 2_500, 2_550, Outcome.OK));
    h.add(granted("L2", "b", 2_000, 7_000, "b-0"));
    // The first completion of L2 went unanswered; the retry was answered 410 (the first had
    // been applied): b-0 is possibly completed, not lost.
    h.add(new CompleteAttempt("L2", "b", 1, 2_500, 5_500, Outcome.FAILED));
    h.add(new CompleteAttempt("L2", "b", 2, 5_700, 5_750, Outcome.LOST));
    // A fault at 10 s: b fails twice, then is served at 14 s.
    h.add(new Fault("kill-9", Fault.INJECTED, 2, 10_000, ""));
    h.add(published("b", "b-1", 10_500, Outcome.FAILED, null));
    h.add(published("b", "b-1", 11_000, Outcome.FAILED, null));
    h.add(published("b", "b-1", 13_900, Outcome.OK, "n4"));
    h.add(published("a", "a-2", 10_600, Outcome.OK, "n5"));
    // a-2 expired once (lease L3 never completed), then went out again in L4.
    h.add(granted("L3", "a", 15_000, 20_000, "a-2"));
    h.add(granted("L4", "a", 20_001, 25_001, "a-2"));
    h.add(new CompleteAttempt("L4", "a", 1, 20_500, 20_550, Outcome.OK));
    h.add(granted("L5", "b", 16_000, 21_000, "b-1"));
    h.add(new CompleteAttempt("L5", "b", 1, 16_500, 16_550, Outcome.OK));
    h.add(new FinalInbox("a", 0, false, 30_000));
    h.add(new FinalInbox("b", 0, false, 30_000));
    return h;
  }

  @Test
  void aCleanHistoryPasses() {
    Verdict verdict = HistoryChecker.check(clean());
    assertTrue(verdict.safe(), verdict.violations().toString());
    assertEquals(5, verdict.acknowledged());
    assertEquals(4, verdict.completed());
    Verdict.FaultWindow window = verdict.windows().get(0);
    assertEquals(1, window.agentsAffected());
    assertEquals(13_950 - 10_000, window.maxWindowMs());
    assertEquals(13_950 - 10_500, window.maxOutageMs());
    assertEquals("b", window.worstAgent());
    assertTrue(window.within(10_000));
    assertFalse(window.within(3_000));
  }

  @Test
  void anAcknowledgedNotificationNeverCompletedIsLost() {
    List<Event> h = clean();
    h.add(published("a", "a-9", 21_000, Outcome.OK, "n9"));
    Verdict verdict = HistoryChecker.check(h);
    assertEquals(List.of("a-9 (agent a, never granted)"), verdict.lost());
    assertFalse(verdict.safe());
  }

  @Test
  void aNotificationWhoseLastLeaseWasRefusedIsLost() {
    List<Event> h = clean();
    h.removeIf(e -> e instanceof CompleteAttempt c && c.leaseId().equals("L5"));
    h.add(new CompleteAttempt("L5", "b", 1, 16_500, 16_550, Outcome.LOST));
    Verdict verdict = HistoryChecker.check(h);
    assertEquals(1, verdict.lost().size(), verdict.lost().toString());
    assertTrue(verdict.lost().get(0).startsWith("b-1"));
  }

  @Test
  void deadLettersAndUndrainedAgentsAreNotLost() {
    List<Event> h = clean();
    h.add(published("a", "a-9", 21_000, Outcome.OK, "n9"));
    h.add(new DeadLetter("a", "a-9", 30_000));
    assertTrue(HistoryChecker.check(h).safe());

    List<Event> undrained = clean();
    undrained.add(published("a", "a-9", 21_000, Outcome.OK, "n9"));
    undrained.removeIf(e -> e instanceof FinalInbox f && f.agentId().equals("a"));
    undrained.add(new FinalInbox("a", 1, false, 30_000));
    Verdict verdict = HistoryChecker.check(undrained);
    assertTrue(verdict.lost().isEmpty());
    assertEquals(List.of("a unread 1"), verdict.undrained());
    assertFalse(verdict.safe());
  }

  @Test
  void aCompletionAcceptedAfterTheAgentWasGrantedAgainIsStale() {
    List<Event> h = clean();
    // L3 (expired at 20 s) completed at 21 s, after L4 was granted at 20.001 s.
    h.add(new CompleteAttempt("L3", "a", 3, 21_000, 21_050, Outcome.OK));
    Verdict verdict = HistoryChecker.check(h);
    assertEquals(1, verdict.staleAccepted().size(), verdict.staleAccepted().toString());
    assertTrue(verdict.staleAccepted().get(0).contains("lease L3"));
    // ... and a-2 is now completed twice.
    assertEquals(1, verdict.duplicateCompletions().size());
  }

  @Test
  void theSameStaleCompletionRefusedPasses() {
    List<Event> h = clean();
    h.add(new CompleteAttempt("L3", "a", 3, 21_000, 21_050, Outcome.LOST));
    assertTrue(HistoryChecker.check(h).safe());
  }

  @Test
  void aGrantBeforeTheHolderExpiredOrCompletedOverlaps() {
    List<Event> h = clean();
    h.removeIf(e -> e instanceof Granted g && g.leaseId().equals("L4"));
    h.add(granted("L4", "a", 19_000, 24_000, "a-2"));
    Verdict verdict = HistoryChecker.check(h);
    assertEquals(1, verdict.overlappingHolds().size(), verdict.overlappingHolds().toString());
    assertTrue(verdict.overlappingHolds().get(0).contains("while L3"));
  }

  @Test
  void aHeartbeatExtendsTheHold() {
    List<Event> h = clean();
    // L3 renewed until 22 s: L4 at 20.001 s now overlaps.
    h.add(new Renewed("L3", 16_000, 16_050, Outcome.OK, 22_000));
    assertEquals(1, HistoryChecker.check(h).overlappingHolds().size());
    // A failed heartbeat does not.
    List<Event> failed = clean();
    failed.add(new Renewed("L3", 16_000, 16_050, Outcome.FAILED, 0));
    assertTrue(HistoryChecker.check(failed).overlappingHolds().isEmpty());
  }

  @Test
  void aLeaseRefusedToItsRunnerBeforeItsExpiryEndedEarly() {
    List<Event> h = clean();
    // L3 (held until 20 s) is refused at 17 s to a heartbeat: the cluster ended it 3 s early.
    h.add(new Renewed("L3", 16_900, 17_000, Outcome.LOST, 0));
    Verdict verdict = HistoryChecker.check(h);
    assertEquals(1, verdict.endedEarly().size(), verdict.endedEarly().toString());
    assertTrue(verdict.endedEarly().get(0).contains("lease L3 refused at 17000, 3000 ms"));
    assertFalse(verdict.safe());
    // The same refusal after the expiry is the lease ending on time.
    List<Event> late = clean();
    late.add(new Renewed("L3", 20_100, 20_200, Outcome.LOST, 0));
    assertTrue(HistoryChecker.check(late).safe());
  }

  @Test
  void aKeyAcknowledgedUnderTwoIdsIsADuplicate() {
    List<Event> h = clean();
    h.add(published("b", "b-1", 14_000, Outcome.OK, "n4-again"));
    Verdict verdict = HistoryChecker.check(h);
    assertEquals(1, verdict.duplicateAccepts().size());
    assertFalse(verdict.safe());
  }

  @Test
  void anAgentNeverServedAgainHasNoWindowBound() {
    List<Event> h = clean();
    h.removeIf(
        e ->
            e instanceof Published p
                && p.notificationId() != null
                && p.notificationId().equals("n4"));
    Verdict.FaultWindow window = HistoryChecker.check(h).windows().get(0);
    assertEquals(1, window.neverServedAgain());
    assertFalse(window.within(Long.MAX_VALUE - 1));
  }

  @Test
  void anAgentServedAfterTheFaultThatFailsLaterIsNotHeldToTheWindow() {
    List<Event> h = clean();
    // a was acknowledged after the fault (a-2 at 10.6 s); one publish of it fails at 19 s.
    h.add(published("a", "a-9", 19_000, Outcome.FAILED, null));
    h.add(published("a", "a-9", 20_200, Outcome.OK, "n9"));
    Verdict.FaultWindow window = HistoryChecker.check(h).windows().get(0);
    assertEquals(1, window.agentsAffected());
    assertEquals(1, window.laterFailures());
    assertEquals(13_950 - 10_000, window.maxWindowMs());
  }

  @Test
  void theNextFaultEndsTheWindowOfTheOneBefore() {
    List<Event> h = clean();
    h.add(new Fault("restart", Fault.INJECTED, 2, 12_000, ""));
    List<Verdict.FaultWindow> windows = HistoryChecker.check(h).windows();
    // b's recovery at 13.9 s now belongs to the restart; the kill saw b never served again.
    assertEquals(1, windows.get(0).neverServedAgain());
    assertEquals(0, windows.get(1).agentsAffected());
  }

  @Test
  void waitsAreSplitByTheHostAtTheFault() {
    List<Event> h = clean();
    h.add(new Placement(2, List.of("b"), 9_900));
    h.add(new Placement(1, List.of("a"), 9_900));
    Verdict.FaultWindow window = HistoryChecker.check(h).windows().get(0);
    assertEquals(1, window.hostedAgents());
    assertEquals("b", window.worstHostedAgent());
    assertEquals(13_950 - 10_000, window.hostedWindowMs());
    assertEquals("a", window.worstOtherAgent());
    assertEquals(50, window.othersMaxWaitMs()); // a-2, acknowledged in 50 ms
    assertTrue(window.othersWithin(2_000));
    assertTrue(window.hostedWithin(10_000));
  }

  @Test
  void anotherNodesAgentHeldBackByTheFaultFailsTheOthersBound() {
    List<Event> h = clean();
    h.add(new Placement(2, List.of("b"), 9_900));
    // a is hosted elsewhere, yet its next notification waits 3 s (one failed attempt).
    h.add(published("a", "a-3", 11_000, Outcome.FAILED, null));
    h.add(published("a", "a-3", 14_000, Outcome.OK, "n6"));
    Verdict.FaultWindow window = HistoryChecker.check(h).windows().get(0);
    assertEquals(14_050 - 11_000, window.othersMaxWaitMs());
    assertEquals("a", window.worstOtherAgent());
    assertFalse(window.othersWithin(2_000));
  }

  @Test
  void aNotificationInFlightAtTheFaultWaitsFromTheFault() {
    List<Event> h = clean();
    h.add(new Placement(2, List.of("b"), 9_900));
    // First sent at 9.5 s, before the fault, answered only at 12.55 s: 2.55 s after the fault.
    h.add(published("a", "a-3", 9_500, Outcome.FAILED, null));
    h.add(published("a", "a-3", 12_500, Outcome.OK, "n6"));
    Verdict.FaultWindow window = HistoryChecker.check(h).windows().get(0);
    assertEquals(12_550 - 10_000, window.othersMaxWaitMs());
  }

  @Test
  void theFaultyNodesAgentServedLateFailsTheHostedBound() {
    List<Event> h = clean();
    h.add(new Placement(2, List.of("b"), 9_900));
    h.removeIf(e -> e instanceof Published p && "n4".equals(p.notificationId()));
    h.add(published("b", "b-1", 21_000, Outcome.OK, "n4"));
    Verdict.FaultWindow window = HistoryChecker.check(h).windows().get(0);
    assertEquals(21_050 - 10_000, window.hostedWindowMs());
    assertFalse(window.hostedWithin(10_000));
    // Never served again: no bound holds.
    List<Event> never = clean();
    never.add(new Placement(2, List.of("b"), 9_900));
    never.removeIf(e -> e instanceof Published p && "n4".equals(p.notificationId()));
    assertFalse(HistoryChecker.check(never).windows().get(0).hostedWithin(Long.MAX_VALUE - 1));
  }

  @Test
  void withoutAPlacementTheAgentsTheFaultTookAwayAreTheFaultyNodes() {
    Verdict.FaultWindow window = HistoryChecker.check(clean()).windows().get(0);
    assertEquals(1, window.hostedAgents());
    assertEquals("b", window.worstHostedAgent());
  }

  /**
   * The case: a lease granted on a node whose clock is 30 s behind is taken over by a node
   * with the right clock and granted again 0.7 s before it really ends. On the granting node's own
   * times the first lease ended 30 s earlier; on the machine's clock they overlap.
   */
  @Test
  void aLeaseGrantedOnASlowClockAndGrantedAgainEarlyOverlaps() {
    List<Event> h = new ArrayList<>();
    h.add(published("c", "c-0", 39_000, Outcome.OK, "n1"));
    // Granted at 40 s by node 3, whose clock says 10 s; a 5 s lease, not completed yet.
    h.add(new Granted("r1", 3, "S1", "c", 10_000, 15_000, List.of("c-0"), 39_990, 40_010));
    // Granted again at 44.3 s by node 1 (right clock): 0.7 s before S1 ends.
    h.add(new Granted("r2", 1, "S2", "c", 44_300, 49_300, List.of("c-0"), 44_290, 44_310));
    h.add(new CompleteAttempt("S2", "c", 1, 44_500, 44_550, Outcome.OK));
    h.add(new CompleteAttempt("S1", "c", 1, 46_000, 46_050, Outcome.LOST));
    h.add(new FinalInbox("c", 0, false, 60_000));
    assertTrue(HistoryChecker.check(h).safe(), "without the skew the server times hide it");

    h.add(new ClockSkew(3, -30_000, 0));
    h.add(new ClockSkew(2, 30_000, 0));
    Verdict verdict = HistoryChecker.check(h);
    assertEquals(1, verdict.overlappingHolds().size(), verdict.overlappingHolds().toString());
    assertTrue(verdict.overlappingHolds().get(0).contains("while S1"));
  }

  @Test
  void skewedClocksThatKeepLeasesApartPass() {
    List<Event> h = new ArrayList<>();
    h.add(published("c", "c-0", 39_000, Outcome.OK, "n1"));
    h.add(new Granted("r1", 3, "S1", "c", 10_000, 15_000, List.of("c-0"), 39_990, 40_010));
    // Renewed on node 2 (30 s ahead) at 42 s until 47 s on the machine's clock.
    h.add(new Renewed("S1", 41_990, 42_010, Outcome.OK, 77_000));
    h.add(new Granted("r2", 1, "S2", "c", 47_100, 52_100, List.of("c-0"), 47_090, 47_110));
    h.add(new CompleteAttempt("S2", "c", 1, 47_500, 47_550, Outcome.OK));
    h.add(new FinalInbox("c", 0, false, 60_000));
    h.add(new ClockSkew(3, -30_000, 0));
    h.add(new ClockSkew(2, 30_000, 0));
    assertTrue(HistoryChecker.check(h).safe(), HistoryChecker.check(h).violations().toString());
    // The same renewal seen on the machine's clock ends at 47 s; a grant at 46 s overlaps.
    h.removeIf(e -> e instanceof Granted g && g.leaseId().equals("S2"));
    h.add(new Granted("r2", 1, "S2", "c", 46_000, 51_000, List.of("c-0"), 45_990, 46_010));
    assertEquals(1, HistoryChecker.check(h).overlappingHolds().size());
  }

  @Test
  void aHistoryFileReadsBackToTheSameVerdict(@TempDir Path dir) throws Exception {
    History history = new History();
    clean().forEach(history::add);
    history.add(new Placement(2, List.of("b"), 9_900));
    history.add(new ClockSkew(3, -30_000, 0));
    Path file = dir.resolve("history.jsonl");
    history.write(file);
    assertEquals(clean().size() + 2, Files.readAllLines(file).size());
    assertEquals(HistoryChecker.check(history.events()), HistoryChecker.check(History.read(file)));
  }

  private static Published published(
      String agent, String key, long at, Outcome outcome, String id) {
    return new Published(agent, key, 1, at, at + 50, outcome, id, outcome.name());
  }

  private static Granted granted(
      String lease, String agent, long grantedAt, long expiresAt, String... keys) {
    return new Granted(
        "r1", 1, lease, agent, grantedAt, expiresAt, List.of(keys), grantedAt - 10, grantedAt + 10);
  }
}
