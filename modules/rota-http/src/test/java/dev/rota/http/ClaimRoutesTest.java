package dev.rota.http;

import static dev.rota.http.testing.ApiCalls.withToken;
import static dev.rota.http.testing.RouteAssertions.assertError;
import static dev.rota.http.testing.RouteAssertions.body;
import static dev.rota.http.testing.RouteAssertions.fieldNames;
import static dev.rota.http.testing.RouteAssertions.jsonRequest;
import static java.net.http.HttpResponse.BodyHandlers.ofString;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.typesafe.config.ConfigFactory;
import dev.rota.cluster.assign.Dispatcher;
import dev.rota.http.testing.ApiCalls;
import dev.rota.http.testing.JUnit5RouteTest;
import dev.rota.http.testing.RotaTestCluster;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest.BodyPublishers;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.testkit.typed.javadsl.LogCapturingExtension;
import org.apache.pekko.actor.testkit.typed.javadsl.LoggingTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Props;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.http.javadsl.Http;
import org.apache.pekko.http.javadsl.ServerBinding;
import org.apache.pekko.http.javadsl.model.HttpRequest;
import org.apache.pekko.http.javadsl.settings.ServerSettings;
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
 * {@code POST /v1/claims} against the real dispatcher, coordinators and agents of a one-node
 * cluster (in-memory journal). Each test's agents require a capability named after the test and its
 * runners offer only that one, so tests never take each other's agents.
 */
@ExtendWith(LogCapturingExtension.class)
class ClaimRoutesTest extends JUnit5RouteTest {
  private static final List<String> ASSIGNMENT_FIELDS =
      List.of(
          "leaseId",
          "agentId",
          "kind",
          "attempt",
          "grantedAt",
          "expiresAt",
          "notifications",
          "more",
          "agent");

  private static RotaTestCluster cluster;

  private final ApiCalls api = new ApiCalls(this::run);
  private String cap;

  @BeforeAll
  static void startCluster() {
    cluster = RotaTestCluster.inMemory("ClaimRoutesTest");
  }

  @AfterAll
  static void stopCluster() {
    cluster.shutdown();
  }

  @BeforeEach
  void capabilityPerTest(TestInfo info) {
    cap = info.getTestMethod().orElseThrow().getName();
  }

  @Override
  protected ActorSystem<?> typedSystem() {
    return cluster.system();
  }

  private TestRouteResult run(HttpRequest request) {
    return testRoute(cluster.routes(cluster.settings()).route()).run(request);
  }

  private String claimJson(String runnerId, String extra) {
    return "{\"runnerId\": \""
        + runnerId
        + "\", \"capabilities\": [\""
        + cap
        + "\"]"
        + (extra.isEmpty() ? "" : ", " + extra)
        + "}";
  }

  @Test
  void assignsInboxWorkWithTheAssignmentObjectOfApiMd() {
    String agentId = cap + "-a";
    api.register(agentId, cap);
    String first = api.notify(agentId, "mention", "{\"postId\": \"p9\"}");
    String second = api.notify(agentId, "reply", "{\"postId\": \"p10\"}");

    JsonNode answer =
        api.claim(claimJson("runner-7", "\"mode\": \"notification\", \"leaseSeconds\": 120"));

    assertEquals(List.of("status", "assignment"), fieldNames(answer));
    assertEquals("assigned", answer.get("status").asText());
    JsonNode a = answer.get("assignment");
    assertEquals(ASSIGNMENT_FIELDS, fieldNames(a));
    assertEquals(agentId, a.get("agentId").asText());
    assertEquals("inbox", a.get("kind").asText());
    assertEquals(1, a.get("attempt").asInt());
    Instant grantedAt = Instant.parse(a.get("grantedAt").asText());
    assertEquals(grantedAt.plusSeconds(120), Instant.parse(a.get("expiresAt").asText()));
    JsonNode notifications = a.get("notifications");
    assertEquals(2, notifications.size());
    JsonNode n = notifications.get(0);
    assertEquals(
        List.of("notificationId", "type", "payload", "receivedAt", "attempt"), fieldNames(n));
    assertEquals(first, n.get("notificationId").asText());
    assertEquals("mention", n.get("type").asText());
    assertEquals("p9", n.get("payload").get("postId").asText());
    Instant.parse(n.get("receivedAt").asText());
    assertEquals(1, n.get("attempt").asInt());
    assertEquals(second, notifications.get(1).get("notificationId").asText());
    JsonNode agent = a.get("agent");
    assertEquals(List.of("name", "capabilities", "metadata"), fieldNames(agent));
    assertEquals(agentId, agent.get("name").asText());
    assertEquals("[\"" + cap + "\"]", agent.get("capabilities").toString());
    assertTrue(agent.get("metadata").isObject());
    JsonNode lease = api.get("/v1/agents/" + agentId).get("lease");
    assertEquals(a.get("leaseId").asText(), lease.get("leaseId").asText());
    assertEquals("runner-7", lease.get("runnerId").asText());
  }

  @Test
  void defaultsToAHybridRunnerWithTheConfiguredLeaseLength() {
    String agentId = cap + "-a";
    api.register(agentId, cap);

    JsonNode a = api.assignment("runner-defaults", cap);

    // No unread notification: a hybrid runner falls back to the stalest agent.
    assertEquals("exploration", a.get("kind").asText());
    assertEquals(0, a.get("notifications").size());
    long defaultLease = cluster.rota().agentSettings().defaultLeaseSeconds();
    assertEquals(
        Instant.parse(a.get("grantedAt").asText()).plusSeconds(defaultLease),
        Instant.parse(a.get("expiresAt").asText()));
  }

  @Test
  void answersNoneWhenNoAgentFits() {
    api.register(cap + "-a", cap);

    JsonNode none =
        api.claim("{\"runnerId\": \"runner-none\", \"capabilities\": [\"" + cap + "-other\"]}");

    assertEquals(List.of("status"), fieldNames(none));
    assertEquals("none", none.get("status").asText());
  }

  @Test
  void answersPausedWhileTheSystemIsPausedAndAssignsAgainAfterResume() {
    String agentId = cap + "-a";
    api.register(agentId, cap);
    api.notify(agentId, "mention", "{}");
    try {
      JsonNode pause = body(api.post("/admin/pause", "").assertStatusCode(200));
      assertEquals("{\"paused\":true}", pause.toString());

      // The switch reaches each node's dispatcher through a topic, a moment after it is set.
      eventually(() -> assertEquals("paused", api.claim("runner-p", cap).get("status").asText()));
      assertEquals(List.of("status"), fieldNames(api.claim("runner-p", cap)));
    } finally {
      JsonNode resume = body(api.post("/admin/resume", "").assertStatusCode(200));
      assertEquals("{\"paused\":false}", resume.toString());
    }
    eventually(() -> assertEquals("assigned", api.claim("runner-p", cap).get("status").asText()));
  }

  @Test
  void answersALongPollAsAssignedTheMomentANotificationArrives() throws Exception {
    String agentId = cap + "-a";
    api.register(agentId, cap);
    long start = System.nanoTime();

    CompletableFuture<JsonNode> claim =
        CompletableFuture.supplyAsync(
            () ->
                api.claim(
                    claimJson("runner-long", "\"mode\": \"notification\", \"waitSeconds\": 10")));
    Thread.sleep(1000);
    assertFalse(claim.isDone(), "the claim should still be waiting");
    api.notify(agentId, "mention", "{}");
    JsonNode answer = claim.get(10, TimeUnit.SECONDS);

    assertEquals("assigned", answer.get("status").asText(), answer.toString());
    assertEquals("inbox", answer.get("assignment").get("kind").asText());
    assertEquals(agentId, answer.get("assignment").get("agentId").asText());
    assertTrue(Duration.ofNanos(System.nanoTime() - start).toSeconds() < 9);
  }

  @Test
  void answersNoneWhenTheWaitPassesWithoutWork() {
    long start = System.nanoTime();

    JsonNode answer = api.claim(claimJson("runner-wait", "\"waitSeconds\": 1"));

    assertEquals("none", answer.get("status").asText());
    assertTrue(Duration.ofNanos(System.nanoTime() - start).toMillis() >= 1000);
  }

  @Test
  void aLongPollOutlastsTheServersRequestTimeout() throws Exception {
    ServerSettings oneSecond =
        ServerSettings.create(
            ConfigFactory.parseString("pekko.http.server.request-timeout = 1s")
                .withFallback(cluster.config()));
    ServerBinding binding =
        Http.get(cluster.system())
            .newServerAt("127.0.0.1", 0)
            .withSettings(oneSecond)
            .bind(cluster.routes(cluster.settings()).route())
            .toCompletableFuture()
            .get(10, TimeUnit.SECONDS);
    try {
      URI uri = URI.create("http://127.0.0.1:" + binding.localAddress().getPort() + "/v1/claims");
      long start = System.nanoTime();

      var response =
          HttpClient.newHttpClient()
              .send(
                  java.net.http.HttpRequest.newBuilder(uri)
                      .POST(
                          BodyPublishers.ofString(claimJson("runner-socket", "\"waitSeconds\": 3")))
                      .build(),
                  ofString());

      assertEquals(200, response.statusCode(), response.body());
      assertEquals("{\"status\":\"none\"}", response.body());
      assertTrue(Duration.ofNanos(System.nanoTime() - start).toMillis() >= 3000);
    } finally {
      binding.unbind().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "missing runnerId        | {\"mode\": \"hybrid\"}                            | runnerId",
        "blank runnerId          | {\"runnerId\": \" \"}                             | runnerId",
        "unknown mode            | {\"runnerId\": \"r\", \"mode\": \"fast\"}         | mode",
        "waitSeconds over 60     | {\"runnerId\": \"r\", \"waitSeconds\": 61}        | waitSeconds",
        "negative waitSeconds    | {\"runnerId\": \"r\", \"waitSeconds\": -1}        | waitSeconds",
        "waitSeconds as text     | {\"runnerId\": \"r\", \"waitSeconds\": \"5\"}     | waitSeconds",
        "leaseSeconds under 5    | {\"runnerId\": \"r\", \"leaseSeconds\": 4}        | leaseSeconds",
        "leaseSeconds over 7200  | {\"runnerId\": \"r\", \"leaseSeconds\": 7201}     | leaseSeconds",
        "blank capability        | {\"runnerId\": \"r\", \"capabilities\": [\"\"]}   | capabilities[0]",
        "capabilities not a list | {\"runnerId\": \"r\", \"capabilities\": \"code\"} | capabilities",
        "unknown field           | {\"runnerId\": \"r\", \"wait\": 5}                | wait",
        "not JSON                | {\"runnerId\":                                   | not valid JSON",
      })
  void refusesAnInvalidClaimWith400NamingTheField(String why, String json, String field) {
    assertError(api.post("/v1/claims", json), 400, "invalid", field);
  }

  @Test
  void refusesARunnerIdLongerThan128Characters() {
    String json = "{\"runnerId\": \"" + "r".repeat(129) + "\"}";

    assertError(api.post("/v1/claims", json), 400, "invalid", "runnerId");
  }

  @Test
  void answers405ForAnotherMethodThanPost() {
    TestRouteResult get = run(HttpRequest.GET("/v1/claims"));

    assertError(get, 405, "method_not_allowed", "POST");
  }

  private TestRouteResult runSecured(HttpRequest request) {
    HttpSettings secured =
        HttpSettings.from(
            ConfigFactory.parseString(
                    """
                    rota.http.tokens = [
                      { token = "producer-token", roles = [producer] }
                      { token = "runner-token", roles = [runner] }
                    ]
                    """)
                .withFallback(cluster.config()));
    return testRoute(cluster.routes(secured).route()).run(request);
  }

  @Test
  void claimsNeedARunnerToken() {
    HttpRequest claim = jsonRequest("POST", "/v1/claims", claimJson("runner-auth", ""));

    assertError(runSecured(claim), 401, "unauthenticated", "token");
    assertError(runSecured(withToken(claim, "producer-token")), 403, "forbidden", "runner");
    assertEquals(
        "{\"status\":\"none\"}",
        runSecured(withToken(claim, "runner-token")).assertStatusCode(200).entityString());
  }

  @Test
  void answers503WithRetryAfterWhenTheDispatcherDoesNotAnswer() {
    ActorRef<Dispatcher.Command> silent =
        cluster.system().systemActorOf(Behaviors.ignore(), "silent-dispatcher", Props.empty());
    HttpSettings fast =
        HttpSettings.from(
            ConfigFactory.parseString("rota.http.ask-timeout = 300ms")
                .withFallback(cluster.config()));
    ClaimRoutes claims =
        new ClaimRoutes(silent, cluster.system().scheduler(), new ApiAuth(fast), fast, 300);

    TestRouteResult result =
        testRoute(new ApiErrors(fast).handle(() -> claims.route()))
            .run(jsonRequest("POST", "/v1/claims", claimJson("runner-silent", "")));

    assertError(result, 503, "unavailable", "dispatcher did not answer");
    result.assertHeaderExists("Retry-After", "5");
  }

  @Test
  void warnsWhenTheIdleTimeoutWouldCloseALongPollFirst() {
    LoggingTestKit.warn("raise pekko.http.server.idle-timeout")
        .expect(
            cluster.system(),
            () -> {
              RotaRoutes.warnIfIdleTimeoutCutsLongPolls(
                  ConfigFactory.parseString("pekko.http.server.idle-timeout = 60s"),
                  Duration.ofSeconds(65));
              return null;
            });
  }

  private void eventually(Runnable assertion) {
    TestProbe.create(cluster.system())
        .awaitAssert(
            Duration.ofSeconds(10),
            Duration.ofMillis(100),
            () -> {
              assertion.run();
              return null;
            });
  }
}
