package dev.rota.core.calls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.rota.core.model.CallInfo;
import dev.rota.core.model.CallRequest;
import dev.rota.core.model.Notification;
import dev.rota.core.model.Replies;
import dev.rota.core.model.Send;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class TurnSendsTest {
  private static final Instant T0 = Instant.parse("2026-11-22T09:00:00Z");
  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

  private static TurnSends.Plan plan(List<Notification> carried, List<Send> sends, int maxDepth) {
    AtomicInteger ids = new AtomicInteger();
    return TurnSends.completion(
        "acme/a1",
        "lease-secret",
        7,
        carried,
        sends,
        JSON.objectNode().put("ok", true),
        maxDepth,
        T0,
        () -> "c" + ids.incrementAndGet());
  }

  @Test
  void plainSendsGoToAgentsOfTheSendersTenantWithKeysFromTheFencingToken() {
    TurnSends.Plan p =
        plan(
            List.of(),
            List.of(
                new Send("b1", "t", null, null, null, null),
                new Send("b2", "t", null, "mine", null, null)),
            8);
    assertEquals("acme/b1", p.items().get(0).targetKey());
    assertEquals("rota.send:a1:7:0", p.items().get(0).dedupeKey());
    assertEquals("mine", p.items().get(1).dedupeKey());
    assertTrue(p.calls().isEmpty());
    assertTrue(
        p.items().stream().noneMatch(i -> i.dedupeKey().contains("lease-secret")),
        "the lease id is its runner's secret");
  }

  @Test
  void aTurnServingCallsRepliesToEachAndCallsOneDeeper() {
    Notification served =
        new Notification(
            "n1", "q", null, null, T0, 0, new CallInfo("x", new CallInfo.Party("acme", "z"), 3));
    TurnSends.Plan p =
        plan(
            List.of(served),
            List.of(new Send("b1", "t", null, null, null, new CallRequest(60, null))),
            8);
    assertEquals(4, p.items().get(0).call().depth());
    assertEquals(T0.plusSeconds(60), p.calls().get(0).deadline());
    var reply = p.items().get(1);
    assertEquals("acme/z", reply.targetKey());
    assertEquals("x", reply.replyTo());
    assertEquals(Replies.ANSWERED, reply.payload().get("status").asText());
    assertTrue(reply.payload().get("result").get("ok").asBoolean());
    assertEquals("a1", reply.payload().get("from").get("agentId").asText());
  }

  @Test
  void aCallPastTheMaximumDepthIsAnsweredAtOnceAndNotSent() {
    Notification served =
        new Notification(
            "n1", "q", null, null, T0, 0, new CallInfo("x", new CallInfo.Party("acme", "z"), 2));
    TurnSends.Plan p =
        plan(
            List.of(served),
            List.of(new Send("b1", "t", null, null, null, new CallRequest(60, "g"))),
            2);
    assertEquals(1, p.items().size(), "only the reply to the call served");
    assertNull(p.items().get(0).call());
    assertEquals(1, p.calls().size(), "the call is open, to be answered at once");
    assertEquals(
        Replies.DEPTH_EXCEEDED, p.immediate().get(0).payload().get("error").get("reason").asText());
  }

  @Test
  void aReplyToACallerOutsideRotaGoesToTheCallsOwnKey() {
    Notification served =
        new Notification(
            "n1",
            "q",
            null,
            null,
            T0,
            0,
            new CallInfo("acme~f00", new CallInfo.Party("acme", null), 1));
    assertEquals("acme~f00", plan(List.of(served), List.of(), 8).items().get(0).targetKey());
  }

  @Test
  void unstorableSendIsNamedByItsIndex() {
    var bad =
        TurnSends.unstorable(
            List.of(
                new Send("b1", "t", null, null, null, null),
                new Send("b2", "t", JSON.objectNode().put("x", "a\u0000b"), null, null, null)));
    assertEquals("send[1].payload.x", bad.orElseThrow().field());
  }
}
