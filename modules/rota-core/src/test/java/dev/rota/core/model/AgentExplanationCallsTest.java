package dev.rota.core.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Explain names a group of calls whose replies the agent holds, when nothing else is unread. */
class AgentExplanationCallsTest {
  private static final Instant T0 = Instant.parse("2026-11-22T09:00:00Z");

  private static AgentState withGroupHalfAnswered() {
    AgentState s = AgentState.empty("a1").registered(AgentConfig.defaults("a1"), T0);
    List<OpenCall> calls =
        List.of(
            new OpenCall("c1", "b1", "l1", "g", T0, T0.plusSeconds(60), null),
            new OpenCall("c2", "b2", "l1", "g", T0, T0.plusSeconds(60), null));
    s = CallState.sent(s, List.of(), calls, T0);
    Notification reply = new Notification("r1", Replies.TYPE, null, null, T0, 0);
    return CallState.resolved(s, "c1", Replies.ANSWERED, reply, T0);
  }

  @Test
  void aHeldGroupIsAwaitingRepliesWhenNothingElseIsUnread() {
    AgentState s = withGroupHalfAnswered();
    assertEquals(0, s.inbox().size(), "the first reply is held");
    List<AgentExplanation.Block> blocks =
        AgentExplanation.blockedBy(AgentSummary.of(s), T0, false, true);
    AgentExplanation.Block awaiting =
        blocks.stream()
            .filter(b -> b.reason().equals("awaiting_replies"))
            .findFirst()
            .orElseThrow();
    assertEquals(new CallBook.GroupProgress("g", 1, 2), awaiting.replies());
  }

  @Test
  void otherUnreadWorkIsServedMeanwhile() {
    AgentState s =
        withGroupHalfAnswered()
            .notified(new Notification("n1", "t", null, null, T0, 0), java.time.Duration.ZERO);
    List<AgentExplanation.Block> blocks =
        AgentExplanation.blockedBy(AgentSummary.of(s), T0, false, true);
    assertTrue(blocks.stream().noneMatch(b -> b.reason().equals("awaiting_replies")));
  }
}
