package dev.rota.core.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class CallBookTest {
  private static final Instant T0 = Instant.parse("2026-11-22T09:00:00Z");

  private static OpenCall call(String id, String lease, String group, int deadlineSeconds) {
    return new OpenCall(id, "b", lease, group, T0, T0.plusSeconds(deadlineSeconds), null);
  }

  private static Notification reply(String id) {
    return new Notification(id, Replies.TYPE, null, null, T0, 0);
  }

  @Test
  void aCallAloneGivesItsReplyToTheInboxAtOnce() {
    CallBook book = CallBook.empty().sent(List.of(), List.of(call("c1", "l1", null, 60)));
    CallBook.Resolution r = book.resolved("c1", reply("r1"));
    assertEquals(List.of(reply("r1")), r.toInbox());
    assertTrue(r.book().openCalls().isEmpty());
  }

  @Test
  void aGroupHoldsItsRepliesUntilTheLastThenGivesThemInCallOrder() {
    CallBook book =
        CallBook.empty()
            .sent(
                List.of(),
                List.of(
                    call("c1", "l1", "g", 60),
                    call("c2", "l1", "g", 60),
                    call("c3", "l2", "g", 60)));
    CallBook.Resolution second = book.resolved("c2", reply("r2"));
    assertEquals(List.of(), second.toInbox());
    assertEquals(
        List.of(new CallBook.GroupProgress("g", 1, 2), new CallBook.GroupProgress("g", 0, 1)),
        second.book().waitingGroups(),
        "the same group name in another turn is another group");
    CallBook.Resolution first = second.book().resolved("c1", reply("r1"));
    assertEquals(List.of(reply("r1"), reply("r2")), first.toInbox());
    assertEquals(List.of("c3"), first.book().openCalls().stream().map(OpenCall::callId).toList());
  }

  @Test
  void aSecondReplyOrOneForNoOpenCallChangesNothing() {
    CallBook book =
        CallBook.empty()
            .sent(List.of(), List.of(call("c1", "l1", "g", 60), call("c2", "l1", "g", 60)));
    CallBook held = book.resolved("c1", reply("r1")).book();
    assertEquals(held, held.resolved("c1", reply("again")).book());
    assertEquals(List.of(), held.resolved("nope", reply("x")).toInbox());
  }

  @Test
  void deadlinesOfCallsStillWaitingOnly() {
    CallBook book =
        CallBook.empty()
            .sent(List.of(), List.of(call("c1", "l1", "g", 10), call("c2", "l1", "g", 60)));
    assertEquals(T0.plusSeconds(10), book.nextDeadline().orElseThrow());
    CallBook held = book.resolved("c1", reply("r1")).book();
    assertEquals(T0.plusSeconds(60), held.nextDeadline().orElseThrow());
    assertEquals(List.of(), held.overdue(T0.plusSeconds(30)));
    assertEquals(1, held.overdue(T0.plusSeconds(60)).size());
  }
}
