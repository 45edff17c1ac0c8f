package dev.rota.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Replies and calls as an assignment carries them, read from the contract's JSON. */
class ReplyTest {

  private static List<Assignment.Item> notifications(String... items) throws IOException {
    String json =
        "{\"status\":\"assigned\",\"assignment\":{\"leaseId\":\"l1\",\"agentId\":\"boss\","
            + "\"kind\":\"inbox\",\"attempt\":1,\"grantedAt\":\"2026-01-01T00:00:00Z\","
            + "\"expiresAt\":\"2026-01-01T00:05:00Z\",\"agent\":{},\"notifications\":["
            + String.join(",", items)
            + "]}}";
    return Json.MAPPER.readValue(json, ClaimResult.class).assignment().notifications();
  }

  @Test
  void readsAnAnsweredReplyWithItsResult() throws IOException {
    Assignment.Item item =
        notifications(
                "{\"notificationId\":\"n1\",\"type\":\"rota.reply\",\"attempt\":1,"
                    + "\"receivedAt\":\"2026-01-01T00:00:00Z\",\"payload\":{\"callId\":\"c1\","
                    + "\"from\":{\"tenant\":\"acme\",\"agentId\":\"worker-1\"},"
                    + "\"status\":\"answered\",\"result\":{\"summary\":\"done\"}}}")
            .get(0);

    assertTrue(item.isReply());
    Reply reply = item.reply().orElseThrow();
    assertEquals("c1", reply.callId());
    assertEquals(new AgentRef("acme", "worker-1"), reply.from());
    assertEquals(CallStatus.ANSWERED, reply.status());
    assertTrue(reply.answered());
    assertEquals("done", reply.result().path("summary").asText());
    assertNull(reply.error());
  }

  @Test
  void readsFailedAndTimedOutReplies() throws IOException {
    List<Assignment.Item> items =
        notifications(
            "{\"notificationId\":\"n1\",\"type\":\"rota.reply\",\"payload\":{\"callId\":\"c1\","
                + "\"from\":{\"tenant\":\"default\",\"agentId\":\"gone\"},\"status\":\"failed\","
                + "\"error\":{\"reason\":\"undeliverable\",\"message\":\"no such agent\"}}}",
            "{\"notificationId\":\"n2\",\"type\":\"rota.reply\",\"payload\":{\"callId\":\"c2\","
                + "\"from\":{\"tenant\":\"default\",\"agentId\":\"slow\"},"
                + "\"status\":\"timedOut\"}}");

    Reply failed = Reply.from(items.get(0)).orElseThrow();
    assertEquals(CallStatus.FAILED, failed.status());
    assertEquals(new CallError("undeliverable", "no such agent"), failed.error());
    assertNull(failed.result());
    Reply timedOut = Reply.from(items.get(1)).orElseThrow();
    assertEquals(CallStatus.TIMED_OUT, timedOut.status());
    assertFalse(timedOut.answered());
  }

  @Test
  void aNotificationThatIsACallSaysWhoCalledAndHowDeep() throws IOException {
    Assignment.Item item =
        notifications(
                "{\"notificationId\":\"n1\",\"type\":\"task\",\"payload\":{\"q\":1},"
                    + "\"call\":{\"callId\":\"c9\",\"from\":{\"tenant\":\"default\","
                    + "\"agentId\":\"boss\"},\"depth\":2}}")
            .get(0);

    assertEquals(new CallInfo("c9", new AgentRef("default", "boss"), 2), item.call());
    assertFalse(item.isReply());
    assertTrue(item.reply().isEmpty());
  }

  @Test
  void aPlainNotificationIsNeitherACallNorAReply() throws IOException {
    Assignment.Item item =
        notifications("{\"notificationId\":\"n1\",\"type\":\"mention\",\"payload\":{}}").get(0);

    assertNull(item.call());
    assertTrue(item.reply().isEmpty());
  }

  @Test
  void refusesAReplyWithoutACallId() throws IOException {
    Assignment.Item item =
        notifications("{\"notificationId\":\"n1\",\"type\":\"rota.reply\",\"payload\":{}}").get(0);

    assertThrows(IllegalArgumentException.class, item::reply);
  }
}
