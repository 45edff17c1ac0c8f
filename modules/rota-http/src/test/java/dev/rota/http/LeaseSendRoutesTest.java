package dev.rota.http;

import static dev.rota.http.testing.RouteAssertions.assertError;
import static dev.rota.http.testing.RouteAssertions.body;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.rota.http.testing.ApiCalls;
import dev.rota.http.testing.JUnit5RouteTest;
import dev.rota.http.testing.RotaTestCluster;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.apache.pekko.actor.testkit.typed.javadsl.LogCapturingExtension;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.http.javadsl.model.HttpRequest;
import org.apache.pekko.http.javadsl.testkit.TestRouteResult;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A completion's {@code send} and calls (docs/api.md, "Agents that work together") against real
 * agents of a one-node cluster: delivery through sharding, the reply to a call, and the 400s that
 * name the item's field and report nothing. The sender and the target require different
 * capabilities, so each runner claims only the agent it means to.
 */
@ExtendWith(LogCapturingExtension.class)
class LeaseSendRoutesTest extends JUnit5RouteTest {
  private static RotaTestCluster cluster;

  private final ApiCalls api = new ApiCalls(this::run);
  private String sender;
  private String target;

  @BeforeAll
  static void startCluster() {
    cluster = RotaTestCluster.inMemory("LeaseSendRoutesTest");
  }

  @AfterAll
  static void stopCluster() {
    cluster.shutdown();
  }

  @BeforeEach
  void agentsPerTest(TestInfo info) {
    String name = info.getTestMethod().orElseThrow().getName();
    String id =
        name.substring(0, Math.min(30, name.length()))
            + "-"
            + Integer.toHexString(info.getDisplayName().hashCode());
    sender = id + "-s";
    target = id + "-t";
    api.register(sender, sender);
    api.register(target, target);
  }

  @Override
  protected ActorSystem<?> typedSystem() {
    return cluster.system();
  }

  private TestRouteResult run(HttpRequest request) {
    return testRoute(cluster.routes(cluster.settings()).route()).run(request);
  }

  /** The sender, notified once and claimed by its runner: the assignment. */
  private JsonNode senderTurn() {
    api.notify(sender, "start", "{}");
    return api.assignment("runner-" + sender, sender);
  }

  private TestRouteResult complete(JsonNode assignment, String runnerId, String fields) {
    return api.post(
        "/v1/leases/" + assignment.get("leaseId").asText() + "/complete",
        "{\"runnerId\": \"" + runnerId + "\"" + (fields.isBlank() ? "" : ", " + fields) + "}");
  }

  private int unread(String agentId) {
    return api.get("/v1/agents/" + agentId).get("inbox").get("unread").asInt();
  }

  private static void eventually(BooleanSupplier condition, String what) {
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    while (!condition.getAsBoolean()) {
      assertTrue(System.nanoTime() < end, "not within 5 s: " + what);
      try {
        Thread.sleep(20);
      } catch (InterruptedException e) {
        throw new AssertionError(e);
      }
    }
  }

  @Test
  void sendsRideOnTheCompletionAndReachTheTarget() {
    JsonNode turn = senderTurn();
    complete(
            turn,
            "runner-" + sender,
            "\"send\": [{\"agentId\": \""
                + target
                + "\", \"type\": \"review\", \"payload\": {\"pr\": 7}},"
                + " {\"agentId\": \""
                + target
                + "\", \"type\": \"deploy\", \"dedupeKey\": \"d-1\"}]")
        .assertStatusCode(200);
    eventually(() -> unread(target) == 2, "both sends delivered");

    JsonNode got = api.assignment("runner-" + target, target);
    JsonNode notifications = got.get("notifications");
    assertEquals("review", notifications.get(0).get("type").asText());
    assertEquals(7, notifications.get(0).get("payload").get("pr").asInt());
    assertEquals("deploy", notifications.get(1).get("type").asText());
    assertFalse(notifications.get(0).has("call"), "a plain send is no call");
  }

  @Test
  void callIsCarriedToTheTargetAndAnsweredWithItsResult() {
    JsonNode turn = senderTurn();
    complete(
            turn,
            "runner-" + sender,
            "\"send\": [{\"agentId\": \""
                + target
                + "\", \"type\": \"question\", \"call\": {\"timeoutSeconds\": 600}}]")
        .assertStatusCode(200);
    eventually(() -> unread(target) == 1, "the call delivered");

    JsonNode served = api.assignment("runner-" + target, target);
    JsonNode call = served.get("notifications").get(0).get("call");
    String callId = call.get("callId").asText();
    assertEquals(sender, call.get("from").get("agentId").asText());
    assertEquals("default", call.get("from").get("tenant").asText());
    assertEquals(1, call.get("depth").asInt());
    complete(served, "runner-" + target, "\"result\": {\"answer\": 42}").assertStatusCode(200);
    eventually(() -> unread(sender) == 1, "the reply delivered");

    JsonNode reply = api.assignment("runner-" + sender, sender).get("notifications").get(0);
    assertEquals("rota.reply", reply.get("type").asText());
    JsonNode payload = reply.get("payload");
    assertEquals(callId, payload.get("callId").asText());
    assertEquals("answered", payload.get("status").asText());
    assertEquals(42, payload.get("result").get("answer").asInt());
    assertEquals(target, payload.get("from").get("agentId").asText());
  }

  @Test
  void agentViewShowsTheCallsMadeAndTheCallsServed() {
    String other = target + "2";
    api.register(other, other);
    assertEquals(0, api.get("/v1/agents/" + sender).get("calls").get("madeCount").asInt());
    String group = "{\"timeoutSeconds\": 600, \"group\": \"votes\"}";
    complete(
            senderTurn(),
            "runner-" + sender,
            "\"send\": [{\"agentId\": \""
                + target
                + "\", \"type\": \"vote\", \"call\": "
                + group
                + "}, {\"agentId\": \""
                + other
                + "\", \"type\": \"vote\", \"call\": "
                + group
                + "}]")
        .assertStatusCode(200);
    eventually(() -> unread(target) == 1 && unread(other) == 1, "both calls delivered");
    JsonNode served = api.assignment("runner-" + target, target);
    JsonNode carried = api.get("/v1/agents/" + target).get("calls").get("served").get(0);
    assertTrue(carried.get("inTurn").asBoolean(), carried.toString());
    complete(served, "runner-" + target, "\"result\": {\"vote\": \"yes\"}").assertStatusCode(200);
    eventually(
        () -> api.get("/v1/agents/" + sender).at("/calls/made/0/answered").asBoolean(),
        "the first reply held");

    JsonNode calls = api.get("/v1/agents/" + sender).get("calls");
    assertEquals(2, calls.get("madeCount").asInt(), calls.toString());
    JsonNode first = calls.get("made").get(0);
    JsonNode second = calls.get("made").get(1);
    assertEquals(target, first.get("to").asText());
    assertEquals(other, second.get("to").asText());
    assertEquals("votes", first.get("group").asText());
    assertEquals(first.get("sentAt"), second.get("sentAt"), "one turn's group");
    assertFalse(second.get("answered").asBoolean());
    assertTrue(
        java.time.Instant.parse(second.get("deadline").asText())
            .isAfter(java.time.Instant.parse(second.get("sentAt").asText())));
    assertEquals(0, calls.get("servedCount").asInt());

    JsonNode owed = api.get("/v1/agents/" + other).get("calls");
    assertEquals(1, owed.get("servedCount").asInt(), owed.toString());
    JsonNode call = owed.get("served").get(0);
    assertEquals(second.get("callId"), call.get("callId"));
    assertEquals(sender, call.get("from").get("agentId").asText());
    assertEquals(1, call.get("depth").asInt());
    assertFalse(call.get("inTurn").asBoolean());
    assertEquals(0, api.get("/v1/agents/" + target).get("calls").get("servedCount").asInt());
  }

  @Test
  void sendToAnAgentThatDoesNotExistBecomesTheSendersDeadLetter() {
    JsonNode turn = senderTurn();
    complete(
            turn, "runner-" + sender, "\"send\": [{\"agentId\": \"nobody-here\", \"type\": \"x\"}]")
        .assertStatusCode(200);
    eventually(
        () -> api.get("/v1/agents/" + sender).get("deadLetters").asInt() == 1,
        "a dead letter of the sender's");
  }

  @Test
  void refusedCompletionSendsNothing() throws Exception {
    JsonNode turn = senderTurn();
    assertError(
        complete(
            turn, "intruder", "\"send\": [{\"agentId\": \"" + target + "\", \"type\": \"x\"}]"),
        409,
        "lease_not_held",
        "intruder");
    Thread.sleep(300);
    assertEquals(0, unread(target));
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "{\"type\": \"x\"} | send[0].agentId",
        "{\"agentId\": \"a b\", \"type\": \"x\"} | send[0].agentId",
        "{\"agentId\": \"t\"} | send[0].type",
        "{\"agentId\": \"t\", \"type\": \"\"} | send[0].type",
        "{\"agentId\": \"t\", \"type\": \"x\", \"newInput\": \"shout\"} | send[0].newInput",
        "{\"agentId\": \"t\", \"type\": \"x\", \"call\": {\"timeoutSeconds\": 0}}"
            + " | send[0].call.timeoutSeconds",
        "{\"agentId\": \"t\", \"type\": \"x\", \"call\": {\"timeoutSeconds\": 86401}}"
            + " | send[0].call.timeoutSeconds",
        "{\"agentId\": \"t\", \"type\": \"x\", \"colour\": 1} | colour",
      })
  void badSendIs400NamingTheFieldAndReportsNothing(String item, String field) {
    JsonNode turn = senderTurn();
    assertError(
        complete(turn, "runner-" + sender, "\"send\": [" + item + "]"), 400, "invalid", field);
    JsonNode lease = api.get("/v1/agents/" + sender).get("lease");
    assertFalse(lease.isNull(), "the lease is still held: nothing was reported");
  }

  @Test
  void moreSendsThanATurnMayCarryIs400() {
    JsonNode turn = senderTurn();
    StringBuilder sends = new StringBuilder();
    for (int i = 0; i <= 100; i++) {
      sends.append(i == 0 ? "" : ", ").append("{\"agentId\": \"" + target + "\", \"type\": \"x\"}");
    }
    assertError(
        complete(turn, "runner-" + sender, "\"send\": [" + sends + "]"), 400, "invalid", "send");
    assertFalse(api.get("/v1/agents/" + sender).get("lease").isNull());
  }

  @Test
  void completionWithSendAndNextAnswersBoth() {
    JsonNode turn = senderTurn();
    JsonNode done =
        body(
            complete(
                    turn,
                    "runner-" + sender,
                    "\"send\": [{\"agentId\": \""
                        + target
                        + "\", \"type\": \"x\"}], \"next\": {\"mode\": \"notification\","
                        + " \"capabilities\": [\""
                        + sender
                        + "\"]}")
                .assertStatusCode(200));
    assertEquals("none", done.get("next").get("status").asText(), done.toString());
    eventually(() -> unread(target) == 1, "the send delivered");
  }
}
