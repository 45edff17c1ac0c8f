package dev.rota.server;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.rota.server.testing.Databases;
import dev.rota.server.testing.NodeHttp;
import dev.rota.server.testing.TestDatabase;
import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.testkit.typed.javadsl.LogCapturingExtension;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Runner health (decisions 67–69) on a real node on PostgreSQL, over HTTP: a runner failing three
 * activations in a row is degraded and its very next claim is answered {@code none} with reason
 * {@code degraded}, while the agents it failed are retried by another runner; a runner's own report
 * and an admin's restore; a drain that lets the current lease complete and gives no new one; {@code
 * /admin/runners} figures equal to the activations made; retry avoidance that turns the failing
 * runner to other work and, when it is the only runner, serves it after the window; and the runner
 * events on the event stream. Each test uses agents of a capability of its own, so the tests do not
 * take each other's work.
 */
@ExtendWith(LogCapturingExtension.class)
class RunnerHealthNodeTest extends NodeOnDatabase {
  /** Short, so the starvation test waits seconds, not the default 30 s. */
  private static final Duration AVOID_WINDOW = Duration.ofSeconds(4);

  @Override
  TestDatabase newDatabase() {
    return Databases.postgres();
  }

  @Override
  Config nodeConfig(TestDatabase database) {
    return postgresConfig(
        ConfigFactory.parseMap(
            Map.of("rota.runner-health.retry-avoid-window", AVOID_WINDOW.toMillis() + "ms")),
        database);
  }

  @BeforeAll
  void awaitReady() {
    NodeHttp management = new NodeHttp(node.managementPort());
    await("node ready")
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(100))
        .until(() -> management.send("GET", "/ready", null).statusCode() == 200);
  }

  private NodeHttp http() {
    return new NodeHttp(node.httpPort());
  }

  @Test
  void aRunnerFailingThreeInARowIsDegradedAndItsFailuresAreRetriedElsewhere() throws Exception {
    String cap = "cap-degrade";
    for (int i = 1; i <= 3; i++) {
      agent("deg-" + i, cap, 1);
    }
    Set<String> failed = new HashSet<>();
    for (int i = 0; i < 3; i++) {
      JsonNode a = assigned(claim("sick-1", cap, 5));
      failed.add(a.get("agentId").asText());
      fail(a, "sick-1", "model key revoked");
    }
    assertEquals(Set.of("deg-1", "deg-2", "deg-3"), failed);

    JsonNode refused = claim("sick-1", cap, 0);
    assertEquals("none", refused.get("status").asText(), refused.toString());
    assertEquals("degraded", refused.get("reason").asText(), refused.toString());
    assertTrue(refused.get("retryAfterSeconds").asLong() > 0, refused.toString());

    Set<String> retried = new HashSet<>();
    for (int i = 0; i < 3; i++) {
      JsonNode a = assigned(claim("healthy-1", cap, 5));
      assertEquals(2, a.get("attempt").asInt(), a.toString());
      retried.add(a.get("agentId").asText());
      complete(a, "healthy-1");
    }
    assertEquals(failed, retried);

    JsonNode sick = runner("sick-1");
    assertEquals("degraded", sick.get("status").asText(), sick.toString());
    assertTrue(sick.get("degraded").get("reason").asText().contains("model key revoked"));
    assertNotNull(sick.get("degraded").get("until").asText(null), sick.toString());
    assertEquals(3, sick.get("stats").get("failed").asLong(), sick.toString());
    assertEquals("model key revoked", sick.get("stats").get("lastError").asText());

    JsonNode restored = http().json("POST", "/admin/runners/sick-1/restore", null, 200);
    assertEquals("healthy", restored.get("status").asText(), restored.toString());
    List<JsonNode> events =
        events(Set.of("runner.degraded", "runner.restored"), "sick-1", 2, Duration.ofSeconds(20));
    assertEquals("runner.degraded", events.get(0).get("type").asText(), events.toString());
    assertEquals("runner.restored", events.get(1).get("type").asText(), events.toString());
  }

  @Test
  void aRunnerReportsItselfDegradedAndAnAdminRestoresIt() {
    String cap = "cap-report";
    agent("rep-1", cap, 1);
    JsonNode reported =
        http()
            .json(
                "POST",
                "/v1/runners/self-1/health",
                "{\"degraded\": true, \"reason\": \"out of memory\", \"seconds\": 300}",
                200);
    assertEquals("degraded", reported.get("status").asText(), reported.toString());
    JsonNode refused = claim("self-1", cap, 0);
    assertEquals("degraded", refused.get("reason").asText(), refused.toString());
    assertEquals("out of memory", runner("self-1").get("degraded").get("reason").asText());

    http().json("POST", "/admin/runners/self-1/restore", null, 200);
    JsonNode a = assigned(claim("self-1", cap, 5));
    complete(a, "self-1");

    // Reported degraded and then healthy by itself.
    http()
        .json(
            "POST",
            "/v1/runners/self-1/health",
            "{\"degraded\": true, \"reason\": \"disk full\", \"seconds\": 60}",
            200);
    assertEquals("degraded", claim("self-1", cap, 0).get("reason").asText());
    JsonNode healthy =
        http().json("POST", "/v1/runners/self-1/health", "{\"degraded\": false}", 200);
    assertEquals("healthy", healthy.get("status").asText());
    assertFalse(claim("self-1", cap, 0).has("reason"));

    // A report without its duration is the runner's mistake: 400, not a 5xx.
    assertEquals(
        400, http().send("POST", "/v1/runners/self-1/health", "{\"degraded\": true}").statusCode());
  }

  @Test
  void aDrainLetsTheCurrentLeaseCompleteAndGivesNoNewOne() {
    String cap = "cap-drain";
    agent("drain-1", cap, 1);
    agent("drain-2", cap, 1);
    JsonNode held = assigned(claim("drained-1", cap, 5));
    JsonNode draining = http().json("POST", "/admin/runners/drained-1/drain", null, 200);
    assertEquals("draining", draining.get("status").asText(), draining.toString());
    assertEquals("draining", runner("drained-1").get("status").asText());

    JsonNode refused = claim("drained-1", cap, 0);
    assertEquals("none", refused.get("status").asText());
    assertEquals("draining", refused.get("reason").asText(), refused.toString());
    complete(held, "drained-1");
    assertEquals("draining", claim("drained-1", cap, 0).get("reason").asText());
    List<JsonNode> events =
        events(Set.of("runner.draining"), "drained-1", 1, Duration.ofSeconds(20));
    assertEquals("runner.draining", events.get(0).get("type").asText());

    // The other agent's work waits for another runner, or for the drained one once restored.
    http().json("POST", "/admin/runners/drained-1/restore", null, 200);
    complete(assigned(claim("drained-1", cap, 5)), "drained-1");
  }

  @Test
  void adminRunnersFiguresEqualTheActivationsMade() {
    String cap = "cap-stats";
    for (int i = 1; i <= 4; i++) {
      agent("stats-" + i, cap, 1);
    }
    long started = System.nanoTime();
    complete(assigned(claim("counted-1", cap, 5)), "counted-1");
    complete(assigned(claim("counted-1", cap, 5)), "counted-1");
    fail(assigned(claim("counted-1", cap, 5)), "counted-1", "flaky tool");
    // Another agent next (the failed one avoids this runner), completed.
    complete(assigned(claim("counted-1", cap, 5)), "counted-1");
    double elapsed = (System.nanoTime() - started) / 1e9;

    JsonNode r = runner("counted-1");
    JsonNode stats = r.get("stats");
    assertEquals(3, stats.get("completed").asLong(), r.toString());
    assertEquals(1, stats.get("failed").asLong(), r.toString());
    assertEquals(0, stats.get("expired").asLong(), r.toString());
    assertTrue(stats.get("meanActivationSeconds").isNumber(), r.toString());
    double mean = stats.get("meanActivationSeconds").asDouble();
    double p95 = stats.get("p95ActivationSeconds").asDouble();
    // Every turn took some time (claimed, then reported over HTTP), none longer than the four
    // together; of four turns the 95th percentile is the longest, at least the mean.
    assertTrue(mean > 0 && mean <= elapsed, mean + " s of " + elapsed + " s: " + r);
    assertTrue(p95 >= mean && p95 <= elapsed, p95 + " s of " + elapsed + " s: " + r);
    assertEquals("flaky tool", stats.get("lastError").asText());
    assertEquals("idle", r.get("status").asText());
  }

  @Test
  void aRetryGoesToAnotherRunnerFirstAndToTheSameOneWhenItIsTheOnlyRunner() throws Exception {
    String cap = "cap-avoid";
    agent("avoid-a", cap, 1);
    JsonNode first = assigned(claim("only-1", cap, 5));
    assertEquals("avoid-a", first.get("agentId").asText());
    fail(first, "only-1", "transient");
    agent("avoid-b", cap, 1);

    // Within the window the failing runner is given the other agent, not the one it failed ...
    JsonNode other = assigned(claim("only-1", cap, 5));
    assertEquals("avoid-b", other.get("agentId").asText(), other.toString());
    complete(other, "only-1");
    // ... and nothing while only the failed agent has work.
    JsonNode none = claim("only-1", cap, 0);
    assertEquals("none", none.get("status").asText(), none.toString());

    // As the only runner it is served after the window: the agent does not starve.
    Instant asked = Instant.now();
    JsonNode again = assigned(claim("only-1", cap, AVOID_WINDOW.toSeconds() + 10));
    assertEquals("avoid-a", again.get("agentId").asText(), again.toString());
    assertEquals(2, again.get("attempt").asInt());
    assertTrue(
        Duration.between(asked, Instant.now()).compareTo(AVOID_WINDOW.plusSeconds(5)) < 0,
        "served too late after the window");
    complete(again, "only-1");

    JsonNode history = http().json("GET", "/v1/agents/avoid-a/history", null, 200);
    boolean named = false;
    for (JsonNode entry : history.get("events")) {
      if (entry.get("type").asText().equals("activation.failed")) {
        assertEquals("only-1", entry.get("runnerId").asText(), entry.toString());
        named = true;
      }
    }
    assertTrue(named, history.toString());
  }

  // ---- helpers ----

  private void agent(String agentId, String capability, int notifications) {
    int status =
        http()
            .send(
                "PUT",
                "/v1/agents/" + agentId,
                "{\"capabilities\": [\""
                    + capability
                    + "\"], \"minActivationIntervalSeconds\": 86400}")
            .statusCode();
    assertTrue(status == 201 || status == 200, "PUT agent answered " + status);
    for (int i = 0; i < notifications; i++) {
      http()
          .json(
              "POST",
              "/v1/agents/" + agentId + "/notifications",
              "{\"type\": \"task\", \"payload\": {\"n\": " + i + "}}",
              202);
    }
  }

  private JsonNode claim(String runnerId, String capability, long waitSeconds) {
    return http()
        .json(
            "POST",
            "/v1/claims",
            "{\"runnerId\": \""
                + runnerId
                + "\", \"mode\": \"hybrid\", \"capabilities\": [\""
                + capability
                + "\"], \"waitSeconds\": "
                + waitSeconds
                + "}",
            200);
  }

  private static JsonNode assigned(JsonNode answer) {
    assertEquals("assigned", answer.get("status").asText(), answer.toString());
    return answer.get("assignment");
  }

  private void complete(JsonNode assignment, String runnerId) {
    http()
        .json(
            "POST",
            "/v1/leases/" + assignment.get("leaseId").asText() + "/complete",
            "{\"runnerId\": \"" + runnerId + "\"}",
            200);
  }

  private void fail(JsonNode assignment, String runnerId, String error) {
    http()
        .json(
            "POST",
            "/v1/leases/" + assignment.get("leaseId").asText() + "/fail",
            "{\"runnerId\": \"" + runnerId + "\", \"error\": \"" + error + "\"}",
            200);
  }

  private JsonNode runner(String runnerId) {
    for (JsonNode r : http().json("GET", "/admin/runners", null, 200).get("runners")) {
      if (r.get("runnerId").asText().equals(runnerId)) {
        return r;
      }
    }
    throw new AssertionError("runner " + runnerId + " not listed");
  }

  /**
   * The first {@code count} events of {@code types} about {@code runnerId} on the event stream,
   * read from the start of the journal.
   */
  private List<JsonNode> events(Set<String> types, String runnerId, int count, Duration within) {
    HttpClient client = HttpClient.newHttpClient();
    HttpRequest request =
        HttpRequest.newBuilder(
                URI.create(http().base() + "/v1/events?since=0&types=" + String.join(",", types)))
            .header("Accept", "text/event-stream")
            .build();
    CompletableFuture<List<JsonNode>> read =
        CompletableFuture.supplyAsync(
            () -> {
              List<JsonNode> found = new ArrayList<>();
              try {
                HttpResponse<InputStream> response =
                    client.send(request, HttpResponse.BodyHandlers.ofInputStream());
                assertEquals(200, response.statusCode());
                try (BufferedReader lines =
                    new BufferedReader(
                        new InputStreamReader(response.body(), StandardCharsets.UTF_8))) {
                  String line;
                  while (found.size() < count && (line = lines.readLine()) != null) {
                    if (line.startsWith("data:")) {
                      JsonNode event =
                          new com.fasterxml.jackson.databind.ObjectMapper()
                              .readTree(line.substring(5).strip());
                      if (runnerId.equals(event.path("runnerId").asText(null))) {
                        found.add(event);
                      }
                    }
                  }
                }
              } catch (Exception e) {
                throw new IllegalStateException(e);
              }
              return found;
            });
    try {
      return read.get(within.toMillis(), TimeUnit.MILLISECONDS);
    } catch (Exception e) {
      read.cancel(true);
      throw new AssertionError("no " + count + " events " + types + " of " + runnerId, e);
    }
  }
}
