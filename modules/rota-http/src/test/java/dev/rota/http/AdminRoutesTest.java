package dev.rota.http;

import static dev.rota.http.testing.ApiCalls.withToken;
import static dev.rota.http.testing.RouteAssertions.assertError;
import static dev.rota.http.testing.RouteAssertions.body;
import static dev.rota.http.testing.RouteAssertions.fieldNames;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.typesafe.config.ConfigFactory;
import dev.rota.core.model.Ids;
import dev.rota.http.testing.ApiCalls;
import dev.rota.http.testing.JUnit5RouteTest;
import dev.rota.http.testing.OpenApiContract;
import dev.rota.http.testing.RotaTestCluster;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.apache.pekko.actor.testkit.typed.javadsl.LogCapturingExtension;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.http.javadsl.model.HttpRequest;
import org.apache.pekko.http.javadsl.testkit.TestRouteResult;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The admin resource and {@code /metrics} on a one-node cluster with the whole production wiring on
 * H2: journal, read model, and an in-cluster pool of two runners that offer only {@code pool-only}
 * (so they never take a test's agent). Metrics trail the agents by their sampling interval, and the
 * journal's storage its maintenance (every second here), so their figures are awaited.
 */
@ExtendWith(LogCapturingExtension.class)
class AdminRoutesTest extends JUnit5RouteTest {
  private static RotaTestCluster cluster;

  private final ApiCalls api = new ApiCalls(this::run);
  private String cap;

  @BeforeAll
  static void startCluster() {
    cluster =
        RotaTestCluster.withDatabase("AdminRoutesTest", "rota.journal.maintenance-interval = 1s");
    cluster.startRunnerPool(
        """
        rota.runners.enabled = true
        rota.runners.pools = [
          { name = "admin-test", count = 2, mode = hybrid, capabilities = [pool-only], executor = noop }
        ]
        """);
  }

  @AfterAll
  static void stopCluster() {
    cluster.shutdown();
  }

  @BeforeEach
  void capabilityPerTest(TestInfo info) {
    // At most 64 characters, like every capability.
    String method = info.getTestMethod().orElseThrow().getName();
    cap =
        method.substring(0, Math.min(40, method.length()))
            + "-"
            + Integer.toHexString(method.hashCode());
  }

  @Override
  protected ActorSystem<?> typedSystem() {
    return cluster.system();
  }

  private TestRouteResult run(HttpRequest request) {
    return testRoute(cluster.routes(cluster.settings()).route()).run(request);
  }

  private JsonNode stats() {
    return api.get("/admin/stats");
  }

  private static long at(JsonNode node, String path) {
    return node.at(path).asLong();
  }

  @Test
  void statsShowEveryFieldOfApiMdAndCountAClaimAndItsCompletion() {
    JsonNode before = stats();
    String agentId = cap + "-a";
    api.register(agentId, cap);
    api.notify(agentId, "mention", "{}");
    String leaseId = api.assignment("runner-stats", cap).get("leaseId").asText();
    api.post("/v1/leases/" + leaseId + "/complete", "{\"runnerId\": \"runner-stats\"}")
        .assertStatusCode(200);

    eventually(
        () -> {
          JsonNode after = stats();
          assertTrue(at(after, "/activations/inbox") >= at(before, "/activations/inbox") + 1);
          assertTrue(
              at(after, "/activations/completed") >= at(before, "/activations/completed") + 1);
          assertTrue(at(after, "/agents/registered") >= at(before, "/agents/registered") + 1);
          // Left out until the journal's maintenance has run once.
          assertTrue(after.has("storage"), after.toString());
        });

    JsonNode s = stats();
    assertEquals(
        List.of(
            "paused",
            "agents",
            "inbox",
            "activations",
            "latency",
            "fairness",
            "runners",
            "deadLetters",
            "cluster",
            "readModel",
            "storage"),
        fieldNames(s));
    assertEquals(
        List.of("registered", "withInbox", "leased", "paused"), fieldNames(s.get("agents")));
    assertEquals(List.of("unread", "oldestUnreadAgeSeconds"), fieldNames(s.get("inbox")));
    assertEquals(
        List.of(
            "inbox",
            "scheduled",
            "exploration",
            "completed",
            "failed",
            "expired",
            "interrupted",
            "perSecond1m"),
        fieldNames(s.get("activations")));
    assertEquals(
        List.of("claimMsP50", "claimMsP99", "inboxWaitMsP50", "inboxWaitMsP99"),
        fieldNames(s.get("latency")));
    assertEquals(
        List.of(
            "maxStalenessSeconds",
            "idealIntervalSeconds",
            "meanActivationSeconds",
            "targetStalenessSeconds",
            "runnersForTargetStaleness"),
        fieldNames(s.get("fairness")));
    assertEquals(List.of("active", "busy", "desired"), fieldNames(s.get("runners")));
    assertEquals(List.of("nodes", "partitions"), fieldNames(s.get("cluster")));
    assertEquals(List.of("skippedEvents"), fieldNames(s.get("readModel")));
    assertEquals(0, s.at("/readModel/skippedEvents").asLong());
    assertFalse(s.get("paused").asBoolean());
    assertTrue(s.at("/activations/perSecond1m").asDouble() > 0);
    assertTrue(s.at("/latency/claimMsP50").asDouble() > 0, s.get("latency").toString());
    assertTrue(s.at("/latency/claimMsP99").asDouble() > 0, s.get("latency").toString());
    assertTrue(s.at("/latency/inboxWaitMsP99").asDouble() > 0, s.get("latency").toString());
    assertTrue(s.get("deadLetters").isIntegralNumber());
    // The external runner that just claimed, and the two pool runners.
    assertTrue(at(s, "/runners/active") >= 3, s.get("runners").toString());
    // The default pool scaler pool (catch-all, min 1) holds what the pool had when it started.
    assertTrue(at(s, "/runners/desired") >= 1, s.get("runners").toString());
    assertEquals(1, at(s, "/cluster/nodes"));
    assertEquals(4, at(s, "/cluster/partitions"));
  }

  @Test
  void statsShowTheJournalsStorageAsItsMaintenanceLastSawIt() {
    eventually(() -> assertTrue(stats().has("storage"), stats().toString()));
    long rowsBefore = at(stats(), "/storage/journalRows");
    String agentId = cap + "-a";
    api.register(agentId, cap);
    api.notify(agentId, "mention", "{}");
    api.notify(agentId, "mention", "{}");

    // Registered and two notifications: three events more, counted by a run after them.
    eventually(
        () -> {
          JsonNode storage = stats().get("storage");
          assertTrue(storage.get("journalRows").asLong() >= rowsBefore + 3, storage.toString());
          assertTrue(storage.get("oldestEventAgeSeconds").asLong() >= 1, storage.toString());
        });

    JsonNode storage = stats().get("storage");
    assertEquals(
        List.of(
            "journalRows",
            "journalBytes",
            "oldestEventAgeSeconds",
            "retentionSeconds",
            "readModelDeadTuples",
            "lastRun"),
        fieldNames(storage));
    assertEquals(
        List.of("endedAt", "removedRows", "removedBytes"), fieldNames(storage.get("lastRun")));
    // H2 counts the journal's events but tells neither its size on disk nor dead tuples.
    assertTrue(storage.get("journalBytes").isNull(), storage.toString());
    assertTrue(storage.get("readModelDeadTuples").isNull(), storage.toString());
    assertEquals(Duration.ofDays(7).toSeconds(), storage.get("retentionSeconds").asLong());
    // Nothing here is a week old: the runs remove nothing.
    assertEquals(0, storage.at("/lastRun/removedRows").asLong(), storage.toString());
    assertEquals(0, storage.at("/lastRun/removedBytes").asLong(), storage.toString());
    Instant endedAt = Instant.parse(storage.at("/lastRun/endedAt").asText());
    assertTrue(endedAt.isAfter(Instant.now().minusSeconds(60)), storage.toString());
    assertFalse(endedAt.isAfter(Instant.now()), storage.toString());
  }

  @Test
  void runnersListShowsAnExternalRunnerWithItsLeaseAndThePoolsRunnersWithTheirNode() {
    String agentId = cap + "-a";
    api.register(agentId, cap);
    String leaseId = api.assignment("runner-listed", cap).get("leaseId").asText();

    eventually(() -> assertEquals(leaseId, runner("runner-listed").get("leaseId").asText()));

    JsonNode external = runner("runner-listed");
    assertEquals(
        List.of(
            "runnerId", "node", "mode", "capabilities", "status", "leaseId", "lastSeenAt", "stats"),
        fieldNames(external));
    assertEquals("executing", external.get("status").asText());
    assertEquals(0, external.at("/stats/completed").asLong(), external.toString());
    assertTrue(external.get("node").isNull());
    assertEquals("hybrid", external.get("mode").asText());
    assertEquals("[\"" + cap + "\"]", external.get("capabilities").toString());
    assertTrue(
        Instant.parse(external.get("lastSeenAt").asText()).isAfter(Instant.now().minusSeconds(60)));
    List<JsonNode> pooled = new ArrayList<>();
    runners()
        .forEach(
            r -> {
              if (!r.get("node").isNull()) {
                pooled.add(r);
              }
            });
    assertEquals(2, pooled.size(), runners().toString());
    for (JsonNode r : pooled) {
      assertEquals("[\"pool-only\"]", r.get("capabilities").toString());
      assertTrue(r.get("runnerId").asText().startsWith(r.get("node").asText() + "/admin-test-"));
      assertTrue(r.get("leaseId").isNull());
    }
    List<String> ids = new ArrayList<>();
    runners().forEach(r -> ids.add(r.get("runnerId").asText()));
    assertEquals(ids.stream().sorted().toList(), ids);
    assertTrue(at(stats(), "/runners/busy") >= 1);

    api.post("/v1/leases/" + leaseId + "/complete", "{\"runnerId\": \"runner-listed\"}")
        .assertStatusCode(200);
    eventually(() -> assertTrue(runner("runner-listed").get("leaseId").isNull()));
  }

  private JsonNode runners() {
    JsonNode list = api.get("/admin/runners");
    assertEquals(List.of("runners"), fieldNames(list));
    return list.get("runners");
  }

  private JsonNode runner(String runnerId) {
    for (JsonNode r : runners()) {
      if (r.get("runnerId").asText().equals(runnerId)) {
        return r;
      }
    }
    throw new AssertionError("no runner " + runnerId + " in " + runners());
  }

  @Test
  void aRunnerReportedDegradedIsRefusedUntilRestoredAndADrainedOneUntilRestored() {
    String runnerId = "runner-" + cap;
    api.register(cap + "-a", cap);
    api.notify(cap + "-a", "mention", "{}");

    JsonNode reported =
        body(
            api.post(
                    "/v1/runners/" + runnerId + "/health",
                    "{\"degraded\": true, \"reason\": \"out of memory\", \"seconds\": 120}")
                .assertStatusCode(200));
    assertEquals("degraded", reported.get("status").asText(), reported.toString());
    assertEquals("out of memory", reported.at("/degraded/reason").asText());
    JsonNode refused = api.claim(runnerId, cap);
    assertEquals("none", refused.get("status").asText(), refused.toString());
    assertEquals("degraded", refused.get("reason").asText());
    long retryAfter = refused.get("retryAfterSeconds").asLong();
    assertTrue(retryAfter >= 1 && retryAfter <= 30, refused.toString());
    JsonNode listed = runner(runnerId);
    assertEquals("degraded", listed.get("status").asText(), listed.toString());
    assertEquals("out of memory", listed.at("/degraded/reason").asText());

    JsonNode restored =
        body(api.post("/admin/runners/" + runnerId + "/restore", "").assertStatusCode(200));
    assertEquals("healthy", restored.get("status").asText());
    assertEquals("assigned", api.claim(runnerId, cap).get("status").asText());

    JsonNode drained =
        body(api.post("/admin/runners/" + runnerId + "/drain", "").assertStatusCode(200));
    assertEquals("draining", drained.get("status").asText(), drained.toString());
    assertEquals("draining", api.claim(runnerId, cap).get("reason").asText());
    body(api.post("/admin/runners/" + runnerId + "/restore", "").assertStatusCode(200));
  }

  @Test
  void aHealthReportWithoutItsFieldsIsA400() {
    api.post("/v1/runners/r-" + cap + "/health", "{}").assertStatusCode(400);
    api.post("/v1/runners/r-" + cap + "/health", "{\"degraded\": true}").assertStatusCode(400);
    api.post(
            "/v1/runners/r-" + cap + "/health",
            "{\"degraded\": true, \"seconds\": 0, \"reason\": \"x\"}")
        .assertStatusCode(400);
    api.post("/v1/runners/r-" + cap + "/health", "not json").assertStatusCode(400);
  }

  @Test
  void listsDeadLettersWithTheirPayloadAsJsonAndRedrivesThemOnce() {
    String agentId = cap + "-a";
    api.register(agentId, cap);
    String notificationId = api.notify(agentId, "mention", "{\"postId\": \"p9\"}");
    String leaseId = api.assignment("runner-dead", cap).get("leaseId").asText();
    api.post(
            "/v1/leases/" + leaseId + "/fail",
            "{\"runnerId\": \"runner-dead\", \"error\": \"not for me\", \"action\": \"cancel\"}")
        .assertStatusCode(200);
    String uri = "/admin/dead-letters?agentId=" + agentId;

    eventually(() -> assertEquals(1, api.get(uri).get("deadLetters").size()));

    JsonNode list = api.get(uri);
    assertEquals(List.of("deadLetters"), fieldNames(list));
    JsonNode dead = list.get("deadLetters").get(0);
    assertEquals(
        List.of(
            "id",
            "agentId",
            "tenant",
            "notificationId",
            "type",
            "payload",
            "attempts",
            "reason",
            "deadAt"),
        fieldNames(dead));
    assertEquals(agentId, dead.get("agentId").asText());
    assertEquals(notificationId, dead.get("notificationId").asText());
    assertEquals("mention", dead.get("type").asText());
    assertEquals("p9", dead.get("payload").get("postId").asText());
    assertEquals(0, dead.get("attempts").asInt());
    assertEquals("cancel: not for me", dead.get("reason").asText());
    Instant.parse(dead.get("deadAt").asText());
    assertTrue(at(stats(), "/deadLetters") >= 1);
    String id = dead.get("id").asText();

    JsonNode redriven =
        body(api.post("/admin/dead-letters/" + id + "/redrive", "").assertStatusCode(200));

    assertEquals(List.of("id", "agentId", "tenant", "redrivenAt"), fieldNames(redriven));
    assertEquals(id, redriven.get("id").asText());
    assertEquals(agentId, redriven.get("agentId").asText());
    JsonNode view = api.get("/v1/agents/" + agentId);
    assertEquals(1, view.get("inbox").get("unread").asInt());
    assertEquals(0, view.get("deadLetters").asInt());
    assertError(api.post("/admin/dead-letters/" + id + "/redrive", ""), 404, "not_found", id);
    eventually(() -> assertEquals(0, api.get(uri).get("deadLetters").size()));
  }

  @Test
  void discardsADeadLetterForGoodWith204() {
    String agentId = cap + "-a";
    api.register(agentId, cap);
    String notificationId = api.notify(agentId, "mention", "{}");
    String leaseId = api.assignment("runner-discard", cap).get("leaseId").asText();
    api.post(
            "/v1/leases/" + leaseId + "/fail",
            "{\"runnerId\": \"runner-discard\", \"action\": \"cancel\"}")
        .assertStatusCode(200);
    String uri = "/admin/dead-letters?agentId=" + agentId;
    eventually(() -> assertEquals(1, api.get(uri).get("deadLetters").size()));
    String id = api.get(uri).get("deadLetters").get(0).get("id").asText();

    TestRouteResult discarded = run(HttpRequest.DELETE("/admin/dead-letters/" + id));

    discarded.assertStatusCode(204);
    assertEquals("", discarded.entityString());
    JsonNode view = api.get("/v1/agents/" + agentId);
    assertEquals(0, view.get("deadLetters").asInt());
    assertEquals(0, view.get("inbox").get("unread").asInt());
    JsonNode latest = api.get("/v1/agents/" + agentId + "/history?limit=1").get("events").get(0);
    assertEquals("dead_letter.discarded", latest.get("type").asText());
    assertEquals(id, latest.get("deadLetterId").asText());
    assertEquals(notificationId, latest.get("notificationId").asText());
    assertError(run(HttpRequest.DELETE("/admin/dead-letters/" + id)), 404, "not_found", id);
    assertError(api.post("/admin/dead-letters/" + id + "/redrive", ""), 404, "not_found", id);
    eventually(() -> assertEquals(0, api.get(uri).get("deadLetters").size()));
  }

  @Test
  void listsDeadLettersOfAllAgentsUpToTheLimit() {
    for (String name : List.of("a", "b")) {
      String agentId = cap + "-" + name;
      api.register(agentId, cap);
      api.notify(agentId, "mention", "{}");
      String leaseId = api.assignment("runner-limit", cap).get("leaseId").asText();
      api.post(
              "/v1/leases/" + leaseId + "/fail",
              "{\"runnerId\": \"runner-limit\", \"action\": \"discard\"}")
          .assertStatusCode(200);
    }

    eventually(() -> assertTrue(api.get("/admin/dead-letters").get("deadLetters").size() >= 2));
    assertEquals(1, api.get("/admin/dead-letters?limit=1").get("deadLetters").size());
  }

  @Test
  void refusesABadAgentIdOrLimitWith400() {
    assertError(
        run(HttpRequest.GET("/admin/dead-letters?agentId=bad%20id")), 400, "invalid", "agentId");
    for (String limit : List.of("0", "1001", "ten")) {
      assertError(
          run(HttpRequest.GET("/admin/dead-letters?limit=" + limit)), 400, "invalid", "limit");
    }
  }

  @Test
  void answers404ToTheDiscardOfAnUnknownDeadLetter() {
    String agentId = cap + "-a";
    api.register(agentId, cap);
    String ofAnAgent = Ids.deadLetterId(agentId, "n-unknown");

    assertError(
        run(HttpRequest.DELETE("/admin/dead-letters/garbage")), 404, "not_found", "garbage");
    assertError(
        run(HttpRequest.DELETE("/admin/dead-letters/" + ofAnAgent)), 404, "not_found", ofAnAgent);
    assertError(
        run(HttpRequest.DELETE("/admin/dead-letters/" + Ids.deadLetterId("nobody-" + cap, "n1"))),
        404,
        "not_found",
        "");
  }

  @Test
  void answers404ToTheRedriveOfAnUnknownDeadLetter() {
    String agentId = cap + "-a";
    api.register(agentId, cap);
    String ofAnAgent = Ids.deadLetterId(agentId, "n-unknown");

    assertError(api.post("/admin/dead-letters/garbage/redrive", ""), 404, "not_found", "garbage");
    assertError(
        api.post("/admin/dead-letters/" + ofAnAgent + "/redrive", ""), 404, "not_found", ofAnAgent);
    assertError(
        api.post("/admin/dead-letters/" + Ids.deadLetterId("nobody-" + cap, "n1") + "/redrive", ""),
        404,
        "not_found",
        "");
  }

  @Test
  void pausesAndResumesTheSystem() {
    try {
      assertEquals(
          "{\"paused\":true}", api.post("/admin/pause", "").assertStatusCode(200).entityString());
      assertTrue(stats().get("paused").asBoolean());
      assertEquals(
          "{\"paused\":true}", api.post("/admin/pause", "").assertStatusCode(200).entityString());
    } finally {
      assertEquals(
          "{\"paused\":false}", api.post("/admin/resume", "").assertStatusCode(200).entityString());
    }
    assertFalse(stats().get("paused").asBoolean());
  }

  @Test
  void pauseResumeAndRedriveTakeTheOptionalEmptyJsonBodyTheDocumentDescribes() {
    try {
      assertEquals(
          "{\"paused\":true}", api.post("/admin/pause", "{}").assertStatusCode(200).entityString());
    } finally {
      assertEquals(
          "{\"paused\":false}",
          api.post("/admin/resume", "{}").assertStatusCode(200).entityString());
    }
    assertError(api.post("/admin/dead-letters/garbage/redrive", "{}"), 404, "not_found", "garbage");

    OpenApiContract contract = OpenApiContract.get();
    for (String path :
        List.of("/admin/pause", "/admin/resume", "/admin/dead-letters/{id}/redrive")) {
      JsonNode requestBody =
          contract.document().get("paths").get(path).get("post").get("requestBody");
      assertEquals("#/components/requestBodies/NoFields", requestBody.get("$ref").asText(), path);
    }
    JsonNode noFields = contract.document().at("/components/requestBodies/NoFields");
    assertFalse(noFields.get("required").asBoolean());
    assertEquals(
        Set.of(),
        contract.validate(
            "/components/requestBodies/NoFields/content/application~1json/schema",
            new ObjectMapper().createObjectNode()));
  }

  @Test
  void servesThisNodesMetricsAsPrometheusText() {
    TestRouteResult metrics = run(HttpRequest.GET("/metrics"));

    metrics.assertStatusCode(200);
    assertEquals("text/plain; version=0.0.4; charset=UTF-8", metrics.contentType().toString());
    String text = metrics.entityString();
    assertTrue(text.contains("# TYPE rota_claim_latency_seconds summary"), text);
    assertTrue(text.contains("rota_activation_duration_seconds_count"), text);
    assertTrue(text.contains("rota_assignments_total{kind=\"inbox\"}"), text);
  }

  @Test
  void adminRoutesAndMetricsNeedAnAdminToken() {
    HttpSettings secured =
        HttpSettings.from(
            ConfigFactory.parseString(
                    """
                    rota.http.tokens = [
                      { token = "runner-token", roles = [runner] }
                      { token = "admin-token", roles = [admin] }
                      { token = "scraper-token", roles = [metrics] }
                    ]
                    """)
                .withFallback(cluster.config()));
    var route = cluster.routes(secured).route();

    for (HttpRequest request :
        List.of(
            HttpRequest.GET("/admin/stats"),
            HttpRequest.GET("/admin/runners"),
            HttpRequest.GET("/admin/dead-letters"),
            HttpRequest.POST("/admin/pause"),
            HttpRequest.POST("/admin/dead-letters/x/redrive"),
            HttpRequest.DELETE("/admin/dead-letters/x"),
            HttpRequest.GET("/metrics"))) {
      assertError(testRoute(route).run(request), 401, "unauthenticated", "token");
      assertError(
          testRoute(route).run(withToken(request, "runner-token")),
          403,
          "forbidden",
          request.getUri().path().equals("/metrics") ? "metrics" : "admin");
    }
    testRoute(route)
        .run(withToken(HttpRequest.GET("/admin/stats"), "admin-token"))
        .assertStatusCode(200);
    testRoute(route)
        .run(withToken(HttpRequest.GET("/metrics"), "admin-token"))
        .assertStatusCode(200);
    // A Prometheus scraper holds the metrics role, and nothing more.
    testRoute(route)
        .run(withToken(HttpRequest.GET("/metrics"), "scraper-token"))
        .assertStatusCode(200);
    assertError(
        testRoute(route).run(withToken(HttpRequest.GET("/admin/stats"), "scraper-token")),
        403,
        "forbidden",
        "admin");
  }

  @Test
  void answers405ForAWrongMethod() {
    assertError(run(HttpRequest.GET("/admin/pause")), 405, "method_not_allowed", "POST");
    assertError(run(HttpRequest.POST("/admin/stats")), 405, "method_not_allowed", "GET");
    assertError(run(HttpRequest.GET("/admin/dead-letters/x")), 405, "method_not_allowed", "DELETE");
  }

  private void eventually(Runnable assertion) {
    TestProbe.create(cluster.system())
        .awaitAssert(
            Duration.ofSeconds(15),
            Duration.ofMillis(200),
            () -> {
              assertion.run();
              return null;
            });
  }
}
