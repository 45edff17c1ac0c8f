package dev.rota.faults.check;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.faults.history.Event;
import dev.rota.faults.history.Event.CompleteAttempt;
import dev.rota.faults.history.Event.FinalInbox;
import dev.rota.faults.history.Event.Granted;
import dev.rota.faults.history.Event.Interrupted;
import dev.rota.faults.history.Event.Outcome;
import dev.rota.faults.history.Event.Published;
import dev.rota.faults.history.Event.Steered;
import dev.rota.faults.history.History;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The checker on histories with new input during a turn: every acknowledged notification completed
 * exactly once (a steered one by the lease it joined, when its runner was given it) or still
 * unread, no completion accepted from an interrupted lease, no two holds overlap (an interrupted
 * lease is held until its interrupt). Each corruption fails the check meant to catch it.
 */
class NewInputHistoryTest {

  /**
   * Agent s steers: s-1 joins lease S1 and is completed with it. Agent i interrupts: i-1 ends I1,
   * whose i-0 returns unread; I2 carries both and completes.
   */
  private static List<Event> clean() {
    List<Event> h = new ArrayList<>();
    h.add(published("s", "s-0", 1_000, "n1"));
    h.add(granted("S1", "s", 2_000, 32_000, "s-0"));
    h.add(published("s", "s-1", 3_000, "n2"));
    h.add(new Steered("S1", List.of("s-1"), 3_100));
    h.add(new CompleteAttempt("S1", "s", 1, 4_000, 4_050, Outcome.OK));

    h.add(published("i", "i-0", 1_000, "n3"));
    h.add(granted("I1", "i", 2_000, 32_000, "i-0"));
    h.add(published("i", "i-1", 3_000, "n4"));
    h.add(new Interrupted("I1", 3_000));
    // The interrupted runner's report is refused, long before I1's expiry: not "ended early".
    h.add(new CompleteAttempt("I1", "i", 1, 3_500, 3_550, Outcome.LOST));
    h.add(granted("I2", "i", 3_200, 33_200, "i-0", "i-1"));
    h.add(new CompleteAttempt("I2", "i", 1, 5_000, 5_050, Outcome.OK));
    h.add(new FinalInbox("s", 0, false, 30_000));
    h.add(new FinalInbox("i", 0, false, 30_000));
    return h;
  }

  @Test
  void aCleanHistoryWithSteeringAndAnInterruptPasses() {
    Verdict verdict = HistoryChecker.check(clean());
    assertTrue(verdict.safe(), verdict.violations().toString());
    assertEquals(4, verdict.acknowledged());
    assertEquals(4, verdict.completed());
  }

  @Test
  void aSteeredNotificationNoLeaseCarriedIsLost() {
    List<Event> h = clean();
    h.removeIf(e -> e instanceof Steered);
    Verdict verdict = HistoryChecker.check(h);
    assertEquals(List.of("s-1 (agent s, never granted)"), verdict.lost());
    assertFalse(verdict.safe());
  }

  @Test
  void aCompletionAcceptedFromAnInterruptedLeaseFails() {
    List<Event> h = clean();
    h.removeIf(e -> e instanceof CompleteAttempt c && c.leaseId().equals("I1"));
    h.add(new CompleteAttempt("I1", "i", 1, 3_500, 3_550, Outcome.OK));
    Verdict verdict = HistoryChecker.check(h);
    assertEquals(1, verdict.interruptedCompleted().size(), verdict.violations().toString());
    assertTrue(verdict.interruptedCompleted().get(0).contains("lease I1"));
    assertFalse(verdict.safe());
    assertTrue(verdict.violations().stream().anyMatch(v -> v.contains("interrupted lease")));
  }

  @Test
  void aNotificationCompletedByTheInterruptedLeaseAndItsSuccessorIsADuplicate() {
    List<Event> h = clean();
    h.removeIf(e -> e instanceof CompleteAttempt c && c.leaseId().equals("I1"));
    h.add(new CompleteAttempt("I1", "i", 1, 3_500, 3_550, Outcome.OK));
    Verdict verdict = HistoryChecker.check(h);
    assertEquals(1, verdict.duplicateCompletions().size(), verdict.violations().toString());
    assertTrue(verdict.duplicateCompletions().get(0).startsWith("i-0"));
  }

  @Test
  void aGrantWhileTheLeaseWasHeldOverlapsUnlessAnInterruptEndedIt() {
    List<Event> h = clean();
    h.removeIf(e -> e instanceof Interrupted);
    h.removeIf(e -> e instanceof CompleteAttempt c && c.leaseId().equals("I1"));
    Verdict verdict = HistoryChecker.check(h);
    assertEquals(1, verdict.overlappingHolds().size(), verdict.violations().toString());
    assertTrue(verdict.overlappingHolds().get(0).contains("I2"));
  }

  @Test
  void theProducersAnswerAloneTellsWhichTurnAnInterruptEnded() {
    List<Event> h = clean();
    h.removeIf(e -> e instanceof Interrupted);
    h.removeIf(e -> e instanceof Published p && p.key().equals("i-1"));
    h.add(new Published("i", "i-1", 1, 3_000, 3_250, Outcome.OK, "n4", "202 interrupted"));
    h.removeIf(e -> e instanceof CompleteAttempt c && c.leaseId().equals("I1"));
    Verdict verdict = HistoryChecker.check(h);
    assertTrue(verdict.safe(), verdict.violations().toString());
    assertEquals(4, verdict.completed());

    // The same answer with I1's completion accepted: the interrupt ended I1, which completed.
    h.add(new CompleteAttempt("I1", "i", 1, 3_500, 3_550, Outcome.OK));
    assertEquals(1, HistoryChecker.check(h).interruptedCompleted().size());
  }

  /**
   * s-2 was answered {@code steered} while S1 ran, but S1's runner was never given it: the runner's
   * completion does not name it, so it returns to the inbox and S3 carries it. It is S3's, not
   * S1's: completed once. Had nothing carried it since, it would be lost.
   */
  @Test
  void aSteeredNotificationItsRunnerWasNotGivenIsTheNextTurns() {
    List<Event> h = clean();
    h.add(new Published("s", "s-2", 1, 3_200, 3_250, Outcome.OK, "n5", "202 steered"));
    h.add(granted("S3", "s", 4_200, 34_200, "s-2"));
    h.add(new CompleteAttempt("S3", "s", 1, 4_500, 4_550, Outcome.OK));
    Verdict verdict = HistoryChecker.check(h);
    assertTrue(verdict.safe(), verdict.violations().toString());
    assertEquals(5, verdict.completed());

    h.removeIf(e -> e instanceof CompleteAttempt c && c.leaseId().equals("S3"));
    h.removeIf(e -> e instanceof Granted g && g.leaseId().equals("S3"));
    assertEquals(List.of("s-2 (agent s, never granted)"), HistoryChecker.check(h).lost());
  }

  /**
   * The grant of K2 never reached a runner (its answer was lost in an outage); new input steered
   * k-2 into K2 and k-3 interrupted it. The answers cannot be K1's, whose completion was accepted
   * before either publish was sent: K1 is not "completed although interrupted", and k-2, which
   * returned to the inbox with K2's end, is K3's alone.
   */
  @Test
  void anInterruptOfALeaseTheHistoryDoesNotKnowIsNotPinnedOnAnEarlierOne() {
    List<Event> h = new ArrayList<>();
    h.add(published("k", "k-0", 1_000, "n1"));
    h.add(granted("K1", "k", 2_000, 7_000, "k-0"));
    h.add(new CompleteAttempt("K1", "k", 1, 2_100, 2_150, Outcome.OK));
    h.add(published("k", "k-1", 3_000, "n2"));
    h.add(new Published("k", "k-2", 1, 9_000, 9_050, Outcome.OK, "n3", "202 steered"));
    h.add(new Published("k", "k-3", 1, 9_100, 9_150, Outcome.OK, "n4", "202 interrupted"));
    h.add(granted("K3", "k", 9_400, 14_400, "k-1", "k-2", "k-3"));
    h.add(new CompleteAttempt("K3", "k", 1, 9_500, 9_550, Outcome.OK));
    h.add(new FinalInbox("k", 0, false, 30_000));
    Verdict verdict = HistoryChecker.check(h);
    assertTrue(verdict.safe(), verdict.violations().toString());
    assertEquals(4, verdict.completed());
  }

  /**
   * Agent r rejects: r-1 is refused twice (409) while R1 runs, then acknowledged and carried by R2.
   * A rejection is an answer: nothing of it is acknowledged, lost or a failure in a fault's window,
   * and the key's wait for its acknowledgement starts after its last rejection.
   */
  @Test
  void aRejectedPublishIsNeitherAcknowledgedNorLostNorAFailure() {
    List<Event> h = new ArrayList<>();
    h.add(published("r", "r-0", 1_000, "n1"));
    h.add(granted("R1", "r", 2_000, 32_000, "r-0"));
    h.add(new Event.Fault("kill-9", Event.Fault.INJECTED, 2, 2_500, ""));
    h.add(rejected("r", "r-1", 3_000));
    h.add(rejected("r", "r-1", 3_600));
    h.add(new CompleteAttempt("R1", "r", 1, 4_000, 4_050, Outcome.OK));
    h.add(
        new Published(
            "r",
            "r-1",
            1,
            4_200,
            4_250,
            Outcome.OK,
            "n2",
            "202 " + Published.NEW_INPUT + "reject"));
    h.add(granted("R2", "r", 4_400, 34_400, "r-1"));
    h.add(new CompleteAttempt("R2", "r", 1, 5_000, 5_050, Outcome.OK));
    h.add(new FinalInbox("r", 0, false, 30_000));
    Verdict verdict = HistoryChecker.check(h);
    assertTrue(verdict.safe(), verdict.violations().toString());
    assertEquals(2, verdict.acknowledged());
    assertEquals(2, verdict.completed());
    Verdict.FaultWindow window = verdict.windows().get(0);
    assertEquals(0, window.agentsAffected(), window.toString());
    assertEquals(50, window.othersMaxWaitMs(), window.toString());

    NewInputCounts counts = NewInputCounts.of(h);
    assertEquals(2, counts.rejected());
    assertEquals(1, counts.rejectedKeys());
    assertEquals(1, counts.rejectedThenAcknowledged());
    assertEquals(java.util.Map.of("reject", 1), counts.ownPolicy());
    assertTrue(counts.any());
  }

  /**
   * Agent r of the killed node: its first publish after the fault times out, the next is rejected
   * (a lease that outlived the failover still runs on its new host), then acknowledged. It was
   * served again at the rejection: its host answered.
   */
  @Test
  void aRejectionIsTheFaultyNodesAgentServedAgain() {
    List<Event> h = new ArrayList<>();
    h.add(published("r", "r-0", 1_000, "n1"));
    h.add(granted("R1", "r", 2_000, 7_000, "r-0"));
    h.add(new Event.Placement(2, List.of("r"), 2_400));
    h.add(new Event.Fault("kill-9", Event.Fault.INJECTED, 2, 2_500, ""));
    h.add(new Published("r", "r-1", 1, 2_600, 3_600, Outcome.FAILED, null, "SocketTimeout"));
    h.add(rejected("r", "r-1", 3_800));
    h.add(new CompleteAttempt("R1", "r", 1, 4_000, 4_050, Outcome.OK));
    h.add(new Published("r", "r-1", 1, 4_200, 4_250, Outcome.OK, "n2", "202"));
    h.add(granted("R2", "r", 4_400, 9_400, "r-1"));
    h.add(new CompleteAttempt("R2", "r", 1, 5_000, 5_050, Outcome.OK));
    h.add(new FinalInbox("r", 0, false, 30_000));
    Verdict verdict = HistoryChecker.check(h);
    assertTrue(verdict.safe(), verdict.violations().toString());
    Verdict.FaultWindow window = verdict.windows().get(0);
    assertEquals(1, window.agentsAffected(), window.toString());
    assertEquals(1_350, window.maxWindowMs(), window.toString());
    assertEquals(1_350, window.hostedWindowMs(), window.toString());
  }

  @Test
  void theCountsSayWhatWasSteeredAndInterruptedAndWhatTheRunnersWereTold() {
    List<Event> h = clean();
    h.add(new Published("s", "s-2", 1, 3_200, 3_250, Outcome.OK, "n5", "202 steered"));
    h.add(new Published("i", "i-2", 1, 3_300, 3_350, Outcome.OK, "n6", "202 interrupted"));
    NewInputCounts counts = NewInputCounts.of(h);
    assertEquals(1, counts.steered());
    assertEquals(1, counts.steeredTold());
    assertEquals(1, counts.interrupted());
    assertEquals(1, counts.interruptsTold());
    assertEquals(0, counts.rejected());
  }

  /**
   * A claim granted J2 while the interrupting publish of j-6 was on its way: the interrupt ended J2
   * (granted after the publish was sent), not J1, and J3 (which carries j-6) was granted after it.
   */
  @Test
  void anInterruptEndsTheLeaseGrantedWhileItsPublishWasOnItsWay() {
    List<Event> h = new ArrayList<>();
    h.add(published("j", "j-0", 1_000, "n1"));
    h.add(granted("J1", "j", 2_000, 7_000, "j-0"));
    h.add(new CompleteAttempt("J1", "j", 1, 2_500, 2_550, Outcome.OK));
    h.add(published("j", "j-1", 3_000, "n2"));
    h.add(new Published("j", "j-6", 1, 5_289, 5_417, Outcome.OK, "n3", "202 interrupted"));
    h.add(granted("J2", "j", 5_319, 10_319, "j-1"));
    h.add(granted("J3", "j", 5_441, 10_441, "j-1", "j-6"));
    h.add(new Interrupted("J2", 5_506));
    h.add(new CompleteAttempt("J2", "j", 1, 5_639, 5_674, Outcome.LOST));
    h.add(new CompleteAttempt("J3", "j", 1, 5_699, 5_794, Outcome.OK));
    h.add(new FinalInbox("j", 0, false, 30_000));
    Verdict verdict = HistoryChecker.check(h);
    assertTrue(verdict.safe(), verdict.violations().toString());
    assertEquals(3, verdict.completed());
  }

  /**
   * m-2's first attempts went unanswered; its write interrupted M1 just after M1's grant, and M2
   * (carrying m-2) was granted at once. The retry was answered as a duplicate (which never says
   * {@code interrupted}) and M1's runner heard of the interrupt only when it reported, long after
   * M2 was granted. M1 was held no later than M2's grant: no overlap. Had M2 carried nothing M1 did
   * not, nothing would show when the interrupt came, and the grant overlaps M1's hold.
   */
  @Test
  void anInterruptTheRunnerHeardOfLateEndedTheHoldBeforeTheNextGrant() {
    List<Event> h = new ArrayList<>();
    h.add(published("m", "m-1", 1_000, "n1"));
    h.add(new Published("m", "m-2", 1, 1_500, 2_500, Outcome.FAILED, null, "SocketTimeout"));
    h.add(granted("M1", "m", 3_000, 8_000, "m-1"));
    h.add(new Published("m", "m-2", 1, 2_700, 3_100, Outcome.OK, "n2", "202 duplicate"));
    h.add(granted("M2", "m", 3_300, 8_300, "m-1", "m-2"));
    h.add(new CompleteAttempt("M2", "m", 1, 3_900, 3_950, Outcome.OK));
    h.add(new Interrupted("M1", 9_500));
    h.add(new CompleteAttempt("M1", "m", 1, 9_500, 9_510, Outcome.LOST));
    h.add(new FinalInbox("m", 0, false, 30_000));
    Verdict verdict = HistoryChecker.check(h);
    assertTrue(verdict.safe(), verdict.violations().toString());

    h.removeIf(e -> e instanceof Granted g && g.leaseId().equals("M2"));
    h.add(granted("M2", "m", 3_300, 8_300, "m-1"));
    assertEquals(1, HistoryChecker.check(h).overlappingHolds().size());
  }

  @Test
  void theNewEventsSurviveAHistoryFile(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("history.jsonl");
    History history = new History();
    clean().forEach(history::add);
    history.write(file);
    assertEquals(clean().size(), Files.readAllLines(file).size());
    assertEquals(clean().size(), History.read(file).size());
    assertTrue(HistoryChecker.check(History.read(file)).safe());
  }

  private static Published published(String agent, String key, long at, String id) {
    return new Published(agent, key, 1, at, at + 50, Outcome.OK, id, "OK");
  }

  private static Published rejected(String agent, String key, long at) {
    return new Published(
        agent,
        key,
        1,
        at,
        at + 50,
        Outcome.REJECTED,
        null,
        "409 turn_in_progress " + Published.NEW_INPUT + "reject");
  }

  private static Granted granted(
      String lease, String agent, long grantedAt, long expiresAt, String... keys) {
    return new Granted(
        "r1", 1, lease, agent, grantedAt, expiresAt, List.of(keys), grantedAt - 10, grantedAt + 10);
  }
}
