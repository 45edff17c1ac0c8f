package dev.rota.http;

import static dev.rota.http.testing.RouteAssertions.assertError;
import static dev.rota.http.testing.RouteAssertions.body;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.rota.core.tenant.AgentKeys;
import dev.rota.http.testing.ApiCalls;
import dev.rota.http.testing.JUnit5RouteTest;
import dev.rota.http.testing.RotaTestCluster;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
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
 * Calls from outside Rota (docs/api.md, "Callers outside Rota"): a notification with {@code call}
 * and {@code GET /v1/calls/{callId}}, against real agents and call entities of a one-node cluster.
 */
@ExtendWith(LogCapturingExtension.class)
class CallRoutesTest extends JUnit5RouteTest {
  private static RotaTestCluster cluster;

  private final ApiCalls api = new ApiCalls(this::run);
  private String agentId;

  @BeforeAll
  static void startCluster() {
    cluster = RotaTestCluster.inMemory("CallRoutesTest");
  }

  @AfterAll
  static void stopCluster() {
    cluster.shutdown();
  }

  @BeforeEach
  void agentPerTest(TestInfo info) {
    String name = info.getTestMethod().orElseThrow().getName();
    agentId =
        name.substring(0, Math.min(30, name.length()))
            + "-"
            + Integer.toHexString(info.getDisplayName().hashCode());
    api.register(agentId, agentId);
  }

  @Override
  protected ActorSystem<?> typedSystem() {
    return cluster.system();
  }

  private TestRouteResult run(HttpRequest request) {
    return testRoute(cluster.routes(cluster.settings()).route()).run(request);
  }

  private String call(String extra) {
    JsonNode accepted =
        body(
            api.post(
                    "/v1/agents/" + agentId + "/notifications",
                    "{\"type\": \"question\", \"call\": {\"timeoutSeconds\": 600}" + extra + "}")
                .assertStatusCode(202));
    return accepted.get("callId").asText();
  }

  private JsonNode turn() {
    return api.assignment("runner-" + agentId, agentId);
  }

  private TestRouteResult report(JsonNode assignment, String action, String fields) {
    return api.post(
        "/v1/leases/" + assignment.get("leaseId").asText() + "/" + action,
        "{\"runnerId\": \"runner-" + agentId + "\", " + fields + "}");
  }

  private JsonNode status(String callId, int waitSeconds) {
    return api.get("/v1/calls/" + callId + "?waitSeconds=" + waitSeconds);
  }

  @Test
  void callIsPendingThenAnsweredWithTheTurnsResult() {
    String callId = call("");
    assertTrue(callId.startsWith("default~"), callId);
    JsonNode pending = status(callId, 0);
    assertEquals("pending", pending.get("status").asText());
    assertFalse(pending.has("answeredAt"));

    JsonNode assignment = turn();
    JsonNode carried = assignment.get("notifications").get(0).get("call");
    assertEquals(callId, carried.get("callId").asText());
    assertEquals("default", carried.get("from").get("tenant").asText());
    assertTrue(carried.get("from").get("agentId").isNull(), "a caller outside Rota");
    report(assignment, "complete", "\"result\": {\"answer\": 42}").assertStatusCode(200);

    JsonNode answered = status(callId, 5);
    assertEquals("answered", answered.get("status").asText(), answered.toString());
    assertEquals(42, answered.get("result").get("answer").asInt());
    assertFalse(answered.has("error"));
    Instant.parse(answered.get("answeredAt").asText());
  }

  @Test
  void longPollAnswersTheMomentTheCallIsAnswered() throws Exception {
    String callId = call("");
    JsonNode assignment = turn();
    long start = System.nanoTime();
    CompletableFuture<JsonNode> polled = CompletableFuture.supplyAsync(() -> status(callId, 30));
    Thread.sleep(300);
    assertFalse(polled.isDone(), "the poll waits while the call is pending");
    report(assignment, "complete", "\"result\": {\"ok\": true}").assertStatusCode(200);
    JsonNode answered = polled.get(10, TimeUnit.SECONDS);
    assertEquals("answered", answered.get("status").asText());
    assertTrue(
        System.nanoTime() - start < TimeUnit.SECONDS.toNanos(10), "long before the 30 s wait");
  }

  @Test
  void callWhoseNotificationIsDeadLetteredFails() {
    String callId = call("");
    report(turn(), "fail", "\"action\": \"cancel\", \"error\": \"no\"").assertStatusCode(200);
    JsonNode failed = status(callId, 5);
    assertEquals("failed", failed.get("status").asText(), failed.toString());
    assertEquals("dead_letter", failed.get("error").get("reason").asText());
    assertFalse(failed.has("result"));
  }

  @Test
  void sameDedupeKeyNamesTheSameCall() {
    String first = call(", \"dedupeKey\": \"k1\"");
    String again = call(", \"dedupeKey\": \"k1\"");
    assertEquals(first, again);
    assertNotEquals(first, call(", \"dedupeKey\": \"k2\""));
  }

  @Test
  void unknownOrOtherTenantsCallIs404() {
    assertError(api.run(get("/v1/calls/default~0123")), 404, "not_found", "default~0123");
    assertError(api.run(get("/v1/calls/acme~0123")), 404, "not_found", "acme~0123");
    assertError(api.run(get("/v1/calls/no-tenant-here")), 404, "not_found", "no-tenant-here");
  }

  @Test
  void callToUnknownAgentIsNeverMade() {
    String unknown = "nobody-" + agentId;
    assertError(
        api.post(
            "/v1/agents/" + unknown + "/notifications",
            "{\"type\": \"q\", \"dedupeKey\": \"k\", \"call\": {\"timeoutSeconds\": 600}}"),
        404,
        "not_found",
        unknown);
    String callId = CallRoutes.callIdFor(AgentKeys.key("default", unknown), "k");
    assertError(api.run(get("/v1/calls/" + callId)), 404, "not_found", callId);
  }

  @Test
  void callRefusedDuringATurnIsNeverMadeAndItsRetryIs() {
    api.post("/v1/agents/" + agentId + "/notifications", "{\"type\": \"hello\"}")
        .assertStatusCode(202);
    JsonNode assignment = turn();
    String refusedCall =
        "{\"type\": \"q\", \"dedupeKey\": \"r1\", \"newInput\": \"reject\","
            + " \"call\": {\"timeoutSeconds\": 600}}";
    assertError(
        api.post("/v1/agents/" + agentId + "/notifications", refusedCall),
        409,
        "turn_in_progress",
        "turn");
    String callId = CallRoutes.callIdFor(AgentKeys.key("default", agentId), "r1");
    assertError(api.run(get("/v1/calls/" + callId)), 404, "not_found", callId);

    report(assignment, "complete", "\"result\": null").assertStatusCode(200);
    assertEquals(callId, call(", \"dedupeKey\": \"r1\""), "the retry names the same call");
    assertEquals("pending", status(callId, 0).get("status").asText());
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "{\"type\": \"q\", \"call\": {\"timeoutSeconds\": 0}} | call.timeoutSeconds",
        "{\"type\": \"q\", \"call\": {\"group\": \"g\"}} | call.group",
        "{\"type\": \"q\", \"call\": {\"colour\": 1}} | colour",
      })
  void badCallIs400NamingTheField(String json, String field) {
    assertError(api.post("/v1/agents/" + agentId + "/notifications", json), 400, "invalid", field);
  }

  @Test
  void waitSecondsOutOfRangeIs400() {
    String callId = call("");
    assertError(
        api.run(get("/v1/calls/" + callId + "?waitSeconds=61")), 400, "invalid", "waitSeconds");
  }

  private static HttpRequest get(String uri) {
    return HttpRequest.GET(uri);
  }
}
