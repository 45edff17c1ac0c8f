package dev.rota.http;

import static dev.rota.http.testing.RouteAssertions.assertError;
import static dev.rota.http.testing.RouteAssertions.body;
import static dev.rota.http.testing.RouteAssertions.jsonRequest;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.typesafe.config.ConfigFactory;
import dev.rota.http.testing.ApiCalls;
import dev.rota.http.testing.JUnit5RouteTest;
import dev.rota.http.testing.RotaTestCluster;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.testkit.typed.javadsl.LogCapturingExtension;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.http.javadsl.model.HttpRequest;
import org.apache.pekko.http.javadsl.server.Route;
import org.apache.pekko.http.javadsl.testkit.TestRouteResult;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * New input during a turn over HTTP (docs/api.md, "New input during a turn"): the agent's {@code
 * newInput}, a notification's own, the {@code input} long poll, the heartbeat's notifications, 409
 * {@code turn_in_progress} and 410 {@code lease_lost} with {@code "reason": "interrupted"}, against
 * real agents of a one-node cluster.
 */
@ExtendWith(LogCapturingExtension.class)
class LeaseInputRoutesTest extends JUnit5RouteTest {
  private static RotaTestCluster cluster;

  private final ApiCalls api = new ApiCalls(this::run);
  private String cap;
  private String agentId;
  private String runnerId;

  @BeforeAll
  static void startCluster() {
    cluster = RotaTestCluster.inMemory("LeaseInputRoutesTest");
  }

  @AfterAll
  static void stopCluster() {
    cluster.shutdown();
  }

  @BeforeEach
  void agentPerTest(TestInfo info) {
    String method = info.getTestMethod().orElseThrow().getName();
    cap =
        method.substring(0, Math.min(40, method.length()))
            + "-"
            + Integer.toHexString(method.hashCode());
    agentId = cap + "-a";
    runnerId = "runner-" + cap;
  }

  @Override
  protected ActorSystem<?> typedSystem() {
    return cluster.system();
  }

  private TestRouteResult run(HttpRequest request) {
    return testRoute(cluster.routes(cluster.settings()).route()).run(request);
  }

  private void register(String extra) {
    run(jsonRequest(
            "PUT",
            "/v1/agents/" + agentId,
            "{\"capabilities\": [\"" + cap + "\"]" + (extra.isEmpty() ? "" : ", " + extra) + "}"))
        .assertStatusCode(201);
  }

  private TestRouteResult notifyRaw(String type, String newInput) {
    return api.post(
        "/v1/agents/" + agentId + "/notifications",
        "{\"type\": \""
            + type
            + "\""
            + (newInput == null ? "" : ", \"newInput\": \"" + newInput + "\"")
            + "}");
  }

  private JsonNode notified(String type, String newInput) {
    return body(notifyRaw(type, newInput).assertStatusCode(202));
  }

  /** Registers with {@code extra}, notifies once and claims; the lease id. */
  private String claimed(String extra) {
    register(extra);
    notified("first", null);
    return api.assignment(runnerId, cap).get("leaseId").asText();
  }

  private TestRouteResult report(String leaseId, String action, String rest) {
    return api.post(
        "/v1/leases/" + leaseId + "/" + action, "{\"runnerId\": \"" + runnerId + "\"" + rest + "}");
  }

  private JsonNode input(String leaseId, int waitSeconds) {
    return body(
        report(leaseId, "input", ", \"waitSeconds\": " + waitSeconds).assertStatusCode(200));
  }

  private static String types(JsonNode notifications) {
    StringBuilder out = new StringBuilder();
    notifications.forEach(n -> out.append(out.isEmpty() ? "" : ",").append(n.get("type").asText()));
    return out.toString();
  }

  @Test
  void anAgentShowsItsNewInputAndDebounce() {
    register("\"newInput\": \"steer\", \"debounceMs\": 500");
    JsonNode view = api.get("/v1/agents/" + agentId);
    assertEquals("steer", view.get("newInput").asText());
    assertEquals(500, view.get("debounceMs").asLong());
    assertEquals(5000, view.get("debounceMaxMs").asLong());
    assertTrue(view.get("debouncingUntil").isNull());
  }

  @Test
  void aQueueAgentsTurnHearsNothingAndTheNotificationWaits() {
    String leaseId = claimed("");
    JsonNode accepted = notified("second", null);
    assertFalse(accepted.has("steered"), accepted.toString());
    assertEquals(0, input(leaseId, 0).get("notifications").size());
    JsonNode beat = body(report(leaseId, "heartbeat", "").assertStatusCode(200));
    assertEquals(0, beat.get("notifications").size());
    report(leaseId, "complete", "").assertStatusCode(200);
    assertEquals(1, api.get("/v1/agents/" + agentId).get("inbox").get("unread").asInt());
  }

  @Test
  void aSteeredNotificationReachesTheWaitingInputPollAndCompletesWithTheLease() throws Exception {
    String leaseId = claimed("\"newInput\": \"steer\"");
    CompletableFuture<JsonNode> poll = CompletableFuture.supplyAsync(() -> input(leaseId, 2));
    JsonNode accepted = notified("second", null);
    assertTrue(accepted.get("steered").asBoolean(), accepted.toString());
    JsonNode answer = poll.get();
    // Either the poll was waiting, or it came after the notification: both give it.
    if (answer.get("notifications").isEmpty()) {
      answer = input(leaseId, 0);
    }
    assertEquals("second", types(answer.get("notifications")));
    assertFalse(answer.get("interrupted").asBoolean());
    assertFalse(answer.has("reason"));
    report(leaseId, "complete", "").assertStatusCode(200);
    assertEquals(0, api.get("/v1/agents/" + agentId).get("inbox").get("unread").asInt());
  }

  @Test
  void theHeartbeatAnswerCarriesSteeredNotifications() {
    String leaseId = claimed("");
    notified("second", "steer");
    JsonNode beat = body(report(leaseId, "heartbeat", "").assertStatusCode(200));
    assertEquals("second", types(beat.get("notifications")));
    JsonNode n = beat.get("notifications").get(0);
    assertTrue(n.has("notificationId") && n.has("payload") && n.has("receivedAt"), n.toString());
  }

  @Test
  void anInterruptEndsTheTurnAndEveryReportIs410WithTheReason() {
    String leaseId = claimed("\"newInput\": \"interrupt\"");
    JsonNode accepted = notified("second", null);
    assertTrue(accepted.get("interrupted").asBoolean(), accepted.toString());

    JsonNode answer = input(leaseId, 5);
    assertTrue(answer.get("interrupted").asBoolean());
    assertEquals("interrupted", answer.get("reason").asText());
    for (String action : new String[] {"heartbeat", "complete", "fail"}) {
      TestRouteResult result = report(leaseId, action, "");
      assertEquals(410, result.statusCode(), result.entityString());
      JsonNode error = body(result);
      assertEquals("lease_lost", error.get("error").asText());
      assertEquals("interrupted", error.get("reason").asText());
    }
    JsonNode next = api.assignment(runnerId, cap);
    assertEquals(1, next.get("attempt").asInt());
    assertEquals("first,second", types(next.get("notifications")));
  }

  @Test
  void aRejectingAgentAnswers409TurnInProgressWithRetryAfter() {
    String leaseId = claimed("\"newInput\": \"reject\"");
    TestRouteResult refused = notifyRaw("second", null);
    assertError(refused, 409, "turn_in_progress", "turn");
    assertTrue(refused.response().getHeader("Retry-After").isPresent());
    assertEquals(1, api.get("/v1/agents/" + agentId).get("inbox").get("unread").asInt());
    report(leaseId, "complete", "").assertStatusCode(200);
    notified("second", null);
  }

  @Test
  void aLeaseThatEndedOtherwiseIs410WithoutAReason() {
    String leaseId = claimed("");
    report(leaseId, "complete", "").assertStatusCode(200);
    assertError(report(leaseId, "input", ""), 410, "lease_lost", leaseId);
  }

  @Test
  void badNewInputAndDebounceValuesAre400NamingTheField() {
    register("");
    assertError(notifyRaw("x", "later"), 400, "invalid", "newInput");
    assertError(
        run(jsonRequest("PUT", "/v1/agents/" + agentId, "{\"newInput\": \"sometimes\"}")),
        400,
        "invalid",
        "newInput");
    assertError(
        run(jsonRequest("PUT", "/v1/agents/" + agentId, "{\"debounceMs\": 60001}")),
        400,
        "invalid",
        "debounceMs");
    assertError(
        run(
            jsonRequest(
                "PUT", "/v1/agents/" + agentId, "{\"debounceMs\": 500, \"debounceMaxMs\": 100}")),
        400,
        "invalid",
        "debounceMaxMs");
    String leaseId = api.assignment(runnerId, cap).get("leaseId").asText();
    assertError(report(leaseId, "input", ", \"waitSeconds\": 61"), 400, "invalid", "waitSeconds");
  }

  @Test
  void aWaitingClaimGetsADebouncingAgentOnceItsBurstPausedWithEveryNotification() {
    register("\"debounceMs\": 300");
    for (int i = 0; i < 3; i++) {
      notified("burst-" + i, null);
    }
    // Nothing else happens to the agent: only the index waking it at its pause's end can answer
    // this claim before its wait runs out.
    JsonNode answer =
        api.claim(
            "{\"runnerId\": \""
                + runnerId
                + "\", \"capabilities\": [\""
                + cap
                + "\"], \"waitSeconds\": 20}");
    assertEquals("assigned", answer.get("status").asText(), answer.toString());
    assertEquals("burst-0,burst-1,burst-2", types(answer.get("assignment").get("notifications")));
  }

  /**
   * A runner's wait for new input is a long poll like a waiting claim: it holds one of the node's
   * rota.http.max-long-polls places while it waits, and gives it back when it is answered.
   */
  @Test
  void aWaitForInputHoldsAPlaceAmongTheNodesLongPolls() throws Exception {
    String leaseId = claimed("\"newInput\": \"interrupt\"");
    HttpSettings onePlace =
        HttpSettings.from(
            ConfigFactory.parseString("rota.http.max-long-polls = 1")
                .withFallback(cluster.config()));
    Route capped = cluster.routes(onePlace).route();
    String waitingClaim =
        "{\"runnerId\": \"other-"
            + cap
            + "\", \"capabilities\": [\"none-"
            + cap
            + "\"],"
            + " \"waitSeconds\": 1}";
    CompletableFuture<TestRouteResult> poll =
        CompletableFuture.supplyAsync(
            () ->
                testRoute(capped)
                    .run(
                        jsonRequest(
                            "POST",
                            "/v1/leases/" + leaseId + "/input",
                            "{\"runnerId\": \"" + runnerId + "\", \"waitSeconds\": 20}")));
    await()
        .atMost(Duration.ofSeconds(15))
        .untilAsserted(
            () ->
                assertError(
                    testRoute(capped).run(jsonRequest("POST", "/v1/claims", waitingClaim)),
                    503,
                    "unavailable",
                    "max-long-polls"));

    assertTrue(notified("second", null).get("interrupted").asBoolean());
    JsonNode answer = body(poll.get(10, TimeUnit.SECONDS).assertStatusCode(200));
    assertTrue(answer.get("interrupted").asBoolean(), answer.toString());
    await()
        .atMost(Duration.ofSeconds(15))
        .untilAsserted(
            () ->
                testRoute(capped)
                    .run(jsonRequest("POST", "/v1/claims", waitingClaim))
                    .assertStatusCode(200));
  }

  @Test
  void anotherRunnersInputPollIs409() {
    String leaseId = claimed("\"newInput\": \"steer\"");
    assertError(
        api.post("/v1/leases/" + leaseId + "/input", "{\"runnerId\": \"intruder\"}"),
        409,
        "lease_not_held",
        "runner");
  }

  @Test
  void aCompletionNamingTheInputItSawLeavesTheRestUnread() {
    String leaseId = claimed("\"newInput\": \"steer\"");
    String seen = notified("second", null).get("notificationId").asText();
    assertEquals("second", types(input(leaseId, 0).get("notifications")));
    // Steered after the runner's last look: its completion does not name it.
    assertTrue(notified("third", null).get("steered").asBoolean());
    report(leaseId, "complete", ", \"inputSeen\": [\"" + seen + "\"]").assertStatusCode(200);
    JsonNode inbox = api.get("/v1/agents/" + agentId).get("inbox");
    assertEquals(1, inbox.get("unread").asInt(), inbox.toString());
    String next = api.assignment(runnerId, cap).get("notifications").get(0).get("type").asText();
    assertEquals("third", next);
  }

  @Test
  void badInputSeenIs400NamingTheItem() {
    String leaseId = claimed("\"newInput\": \"steer\"");
    assertError(
        report(leaseId, "complete", ", \"inputSeen\": [\"\"]"), 400, "invalid", "inputSeen[0]");
    assertError(report(leaseId, "fail", ", \"inputSeen\": [null]"), 400, "invalid", "inputSeen[0]");
    assertError(report(leaseId, "complete", ", \"inputSeen\": \"x\""), 400, "invalid", "inputSeen");
    report(leaseId, "complete", ", \"inputSeen\": []").assertStatusCode(200);
  }
}
