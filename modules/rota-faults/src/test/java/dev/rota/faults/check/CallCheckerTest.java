package dev.rota.faults.check;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.faults.history.Event;
import dev.rota.faults.history.Event.Carried;
import dev.rota.faults.history.Event.CompleteAttempt;
import dev.rota.faults.history.Event.FinalInbox;
import dev.rota.faults.history.Event.Granted;
import dev.rota.faults.history.Event.Outcome;
import dev.rota.faults.history.Event.Sent;
import dev.rota.faults.history.Event.Sent.Send;
import dev.rota.faults.history.History;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The call checks against hand-made histories: a clean one passes, and each corruption fails the
 * check meant to catch it.
 */
class CallCheckerTest {

  /**
   * Agent a's turn sends b a notification and calls b, calls c and d in group g, and calls x, which
   * never gets it (its reply says failed); b's turn with a refused completion sends nothing.
   */
  private static List<Event> clean() {
    List<Event> h = new ArrayList<>();
    h.add(granted("La1", "a", 1_000, "a-0"));
    h.add(
        new Sent(
            "La1",
            "a",
            List.of(
                new Send("La1-s0", "b", false, null),
                new Send("La1-s1", "b", true, null),
                new Send("La1-s2", "c", true, "g"),
                new Send("La1-s3", "d", true, "g"),
                new Send("La1-s4", "x", true, null)),
            1_100));
    h.add(attempt("La1", "a", 1_100, Outcome.OK));
    turnAnswering(h, "Lb1", "b", 2_000, "La1-s1", "c1", "La1-s0");
    turnAnswering(h, "Lc1", "c", 2_000, "La1-s2", "c2");
    turnAnswering(h, "Ld1", "d", 2_100, "La1-s3", "c3");
    h.add(granted("La2", "a", 3_000));
    h.add(carriedReplies("La2", "a", 3_000, reply("c1", "b", "answered")));
    h.add(attempt("La2", "a", 3_100, Outcome.OK));
    h.add(granted("La3", "a", 4_000));
    h.add(
        carriedReplies(
            "La3",
            "a",
            4_000,
            reply("c2", "c", "answered"),
            reply("c3", "d", "answered"),
            reply("c9", "x", "failed")));
    h.add(attempt("La3", "a", 4_100, Outcome.OK));
    // A stale turn of b: its completion was refused, so its send must go nowhere.
    h.add(granted("Lb2", "b", 5_000, "b-0"));
    h.add(new Sent("Lb2", "b", List.of(new Send("Lb2-s0", "c", false, null)), 5_100));
    h.add(attempt("Lb2", "b", 5_100, Outcome.LOST));
    for (String agent : List.of("a", "b", "c", "d")) {
      h.add(new FinalInbox(agent, 0, false, 10_000));
    }
    return h;
  }

  @Test
  void aCleanHistoryPassesAndCountsSendsCallsRepliesAndGroups() {
    CallVerdict verdict = CallChecker.check(clean());
    assertTrue(verdict.safe(), verdict.violations().toString());
    assertEquals(5, verdict.sends());
    assertEquals(4, verdict.calls());
    assertEquals(1, verdict.refusedSends());
    assertEquals(Map.of("answered", 3, "failed", 1), verdict.replies());
    assertEquals(1, verdict.groups());
    assertEquals(1, verdict.groupsDelivered());
  }

  @Test
  void aSendWhoseTargetNeverCompletedItIsUndelivered() {
    List<Event> h = clean();
    h.removeIf(e -> e instanceof CompleteAttempt c && c.leaseId().equals("Lb1"));
    h.add(attempt("Lb1", "b", 2_100, Outcome.LOST));
    CallVerdict verdict = CallChecker.check(h);
    assertEquals(
        List.of(
            "La1-s0 (lease La1 to b), carried by [Lb1]",
            "La1-s1 (lease La1 to b), carried by [Lb1]"),
        verdict.undelivered());
    assertFalse(verdict.safe());
  }

  @Test
  void aSendWhoseLastTurnsCompletionWentUnansweredMayHaveBeenDelivered() {
    List<Event> h = clean();
    h.removeIf(e -> e instanceof CompleteAttempt c && c.leaseId().equals("Lb1"));
    h.add(attempt("Lb1", "b", 2_100, Outcome.FAILED));
    h.add(attempt("Lb1", "b", 5_200, Outcome.LOST));
    assertTrue(CallChecker.check(h).safe(), CallChecker.check(h).violations().toString());

    // Carried again later by a turn whose completion was refused: not delivered after all.
    h.add(granted("Lb4", "b", 6_000, "La1-s0"));
    h.add(attempt("Lb4", "b", 6_100, Outcome.LOST));
    assertEquals(
        List.of("La1-s0 (lease La1 to b), carried by [Lb1, Lb4]"),
        CallChecker.check(h).undelivered().stream().map(CallCheckerTest::leasesSorted).toList());
  }

  @Test
  void aReplyCarriedByATurnWhoseCompletionWentUnansweredMayHaveBeenCompleted() {
    List<Event> h = clean();
    h.removeIf(e -> e instanceof CompleteAttempt c && c.leaseId().startsWith("La"));
    h.add(attempt("La1", "a", 1_100, Outcome.OK));
    h.add(attempt("La2", "a", 3_100, Outcome.FAILED));
    h.add(attempt("La3", "a", 4_100, Outcome.FAILED));
    CallVerdict verdict = CallChecker.check(h);
    assertTrue(verdict.safe(), verdict.violations().toString());
  }

  @Test
  void aSendCompletedByTwoTurnsIsDeliveredTwice() {
    List<Event> h = clean();
    h.add(granted("Lb3", "b", 6_000, "La1-s0"));
    h.add(attempt("Lb3", "b", 6_100, Outcome.OK));
    CallVerdict verdict = CallChecker.check(h);
    assertEquals(
        List.of("La1-s0 (lease La1 to b) completed by leases [Lb1, Lb3]"),
        sorted(verdict.duplicateDeliveries()));
    assertFalse(verdict.safe());
  }

  @Test
  void aSendDeliveredToAnotherAgentThanItsTargetFails() {
    List<Event> h = clean();
    h.add(granted("Lc9", "c", 6_000, "La1-s0"));
    h.add(attempt("Lc9", "c", 6_100, Outcome.OK));
    CallVerdict verdict = CallChecker.check(h);
    assertTrue(
        verdict.duplicateDeliveries().contains("La1-s0 (lease La1 to b) completed by c's lease"),
        verdict.duplicateDeliveries().toString());
  }

  @Test
  void aSendOfARefusedCompletionMustNotBeDelivered() {
    List<Event> h = clean();
    h.add(granted("Lc2", "c", 6_000, "Lb2-s0"));
    h.add(attempt("Lc2", "c", 6_100, Outcome.OK));
    CallVerdict verdict = CallChecker.check(h);
    assertEquals(List.of("Lb2-s0 (lease Lb2 to c) carried by [Lc2]"), verdict.fromRefused());
    assertFalse(verdict.safe());
  }

  @Test
  void aSendOfACompletionWhoseAnswerNeverCameMayBeDeliveredOnce() {
    List<Event> h = clean();
    h.removeIf(e -> e instanceof CompleteAttempt c && c.leaseId().equals("Lb2"));
    h.add(attempt("Lb2", "b", 5_100, Outcome.FAILED));
    assertTrue(CallChecker.check(h).safe(), CallChecker.check(h).violations().toString());
    h.add(granted("Lc2", "c", 6_000, "Lb2-s0"));
    h.add(attempt("Lc2", "c", 6_100, Outcome.OK));
    assertTrue(CallChecker.check(h).safe(), CallChecker.check(h).violations().toString());
  }

  @Test
  void aCallWhoseCallerNeverCompletedAReplyHasNone() {
    List<Event> h = clean();
    h.removeIf(e -> e instanceof Carried c && c.leaseId().equals("La2"));
    CallVerdict verdict = CallChecker.check(h);
    assertEquals(List.of("call c1 (La1-s1, a -> b)"), verdict.missingReplies());
    assertFalse(verdict.safe());

    // A caller not drained at the end may still have it unread: not counted as missing.
    h.removeIf(e -> e instanceof FinalInbox f && f.agentId().equals("a"));
    h.add(new FinalInbox("a", 1, false, 10_000));
    assertTrue(CallChecker.check(h).missingReplies().isEmpty());
  }

  @Test
  void aCallRepliedInTwoAcceptedTurnsIsRepliedTwice() {
    List<Event> h = clean();
    h.add(granted("La4", "a", 7_000));
    h.add(carriedReplies("La4", "a", 7_000, reply("c1", "b", "answered")));
    h.add(attempt("La4", "a", 7_100, Outcome.OK));
    CallVerdict verdict = CallChecker.check(h);
    assertEquals(
        List.of("call c1 (La1-s1, a -> b) replied by leases [La2, La4]"), verdict.doubledReplies());
    assertFalse(verdict.safe());
  }

  @Test
  void aReplyCarriedAgainAfterItsFirstLeaseExpiredIsNotDoubled() {
    List<Event> h = clean();
    // La0 carried c1 first but its completion was refused (the lease expired): La2's counts.
    h.add(granted("La0", "a", 2_900));
    h.add(carriedReplies("La0", "a", 2_900, reply("c1", "b", "answered")));
    h.add(attempt("La0", "a", 2_950, Outcome.LOST));
    assertTrue(CallChecker.check(h).safe(), CallChecker.check(h).violations().toString());
  }

  @Test
  void aReplyToACallNoCompletionSentIsAStray() {
    List<Event> h = clean();
    h.add(granted("La5", "a", 7_000));
    h.add(carriedReplies("La5", "a", 7_000, reply("c7", "b", "timedOut")));
    h.add(attempt("La5", "a", 7_100, Outcome.OK));
    CallVerdict verdict = CallChecker.check(h);
    assertEquals(List.of("a -> b: replies [c7] to 0 calls"), verdict.strayReplies());
    assertFalse(verdict.safe());
  }

  @Test
  void aCallItsTargetNeverCarriedStillNeedsAReply() {
    List<Event> h = clean();
    h.removeIf(e -> e instanceof Carried c && c.leaseId().equals("La3"));
    h.add(
        carriedReplies(
            "La3", "a", 4_000, reply("c2", "c", "answered"), reply("c3", "d", "answered")));
    CallVerdict verdict = CallChecker.check(h);
    assertEquals(List.of("a -> x: 1 of 1 calls"), verdict.missingReplies());
  }

  @Test
  void aTurnCarryingPartOfAGroupsRepliesBreaksTheGroup() {
    List<Event> h = clean();
    h.removeIf(e -> e instanceof Carried c && c.leaseId().equals("La3"));
    h.add(carriedReplies("La3", "a", 4_000, reply("c2", "c", "answered")));
    h.add(granted("La4", "a", 4_500));
    h.add(
        carriedReplies(
            "La4", "a", 4_500, reply("c3", "d", "answered"), reply("c9", "x", "failed")));
    h.add(attempt("La4", "a", 4_600, Outcome.OK));
    CallVerdict verdict = CallChecker.check(h);
    assertEquals(
        List.of(
            "group g of lease La1: lease La3 carried [c2] of [c2, c3]",
            "group g of lease La1: lease La4 carried [c3] of [c2, c3]"),
        sorted(verdict.brokenGroups()));
    assertEquals(0, verdict.groupsDelivered());
    assertFalse(verdict.safe());
  }

  @Test
  void sendsCallsAndRepliesSurviveAWrittenHistory(@TempDir Path dir) {
    History history = new History();
    clean().forEach(history::add);
    history.write(dir.resolve("history.jsonl"));
    CallVerdict verdict = CallChecker.check(History.read(dir.resolve("history.jsonl")));
    assertTrue(verdict.safe(), verdict.violations().toString());
    assertEquals(1, verdict.groupsDelivered());
    assertEquals(Map.of("answered", 3, "failed", 1), verdict.replies());
  }

  /**
   * A turn of {@code agent} carrying {@code call} (its target's view: {@code callId}), accepted.
   */
  private static void turnAnswering(
      List<Event> h,
      String lease,
      String agent,
      long at,
      String call,
      String callId,
      String... more) {
    List<String> keys = new ArrayList<>(List.of(more));
    keys.add(call);
    h.add(granted(lease, agent, at, keys.toArray(String[]::new)));
    h.add(
        new Carried(
            lease, agent, List.of(new Carried.Call(call, callId, "a", 1)), List.of(), at + 1));
    h.add(attempt(lease, agent, at + 50, Outcome.OK));
  }

  private static Granted granted(String lease, String agent, long at, String... keys) {
    return new Granted("r1", 1, lease, agent, at, at + 5_000, List.of(keys), at, at + 5);
  }

  private static Carried carriedReplies(
      String lease, String agent, long at, Carried.Reply... replies) {
    return new Carried(lease, agent, List.of(), List.of(replies), at + 1);
  }

  private static Carried.Reply reply(String callId, String from, String status) {
    return new Carried.Reply(callId, from, status);
  }

  private static CompleteAttempt attempt(String lease, String agent, long at, Outcome outcome) {
    return new CompleteAttempt(lease, agent, 1, at, at + 20, outcome);
  }

  /** The line with its bracketed lease list sorted (grants are kept in a hash map). */
  private static String leasesSorted(String line) {
    int open = line.lastIndexOf('[');
    List<String> leases =
        List.of(line.substring(open + 1, line.length() - 1).split(", ")).stream().sorted().toList();
    return line.substring(0, open) + leases.toString();
  }

  private static List<String> sorted(List<String> lines) {
    return lines.stream().sorted().toList();
  }
}
