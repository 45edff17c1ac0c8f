package dev.rota.cluster.readmodel;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.rota.cluster.agent.AgentEvents;
import dev.rota.cluster.agent.AgentEvents.InboxSummary;
import dev.rota.core.model.Notification;
import dev.rota.core.model.OpenCall;
import dev.rota.core.model.Replies;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The events stream names each call: sent with the completion, and its reply by status. */
class EventFeedCallsTest {
  private static final Instant T0 = Instant.parse("2026-11-22T09:00:00Z");

  @Test
  void aCompletionThatCallsShowsCallSentPerCall() {
    List<OpenCall> calls =
        List.of(
            new OpenCall("c1", "b1", "lease", null, T0, T0.plusSeconds(60), null),
            new OpenCall("c2", "b2", "lease", "g", T0, T0.plusSeconds(60), null));
    List<ObjectNode> out =
        EventFeed.toJson(
            "acme/a1",
            new AgentEvents.ActivationCompleted(
                "lease", null, T0, new InboxSummary(0, null), List.of(), calls));
    assertEquals(3, out.size());
    assertEquals("activation.completed", out.get(0).get("type").asText());
    assertEquals("call.sent", out.get(1).get("type").asText());
    assertEquals("c1", out.get(1).get("callId").asText());
    assertEquals("b1", out.get(1).get("to").asText());
    assertEquals("acme", out.get(2).get("tenant").asText());
  }

  @Test
  void aReplyShowsItsStatusAsTheEventType() {
    Notification reply = new Notification("n", Replies.TYPE, null, null, T0, 0);
    for (String[] pair :
        new String[][] {
          {Replies.ANSWERED, "call.answered"},
          {Replies.FAILED, "call.failed"},
          {Replies.TIMED_OUT, "call.timed-out"}
        }) {
      List<ObjectNode> out =
          EventFeed.toJson("a1", new AgentEvents.CallResolved("c1", pair[0], reply, 1, T0));
      assertEquals(pair[1], out.get(0).get("type").asText());
      assertEquals("c1", out.get(0).get("callId").asText());
      assertEquals(true, EventFeed.TYPES.contains(pair[1]));
    }
  }
}
