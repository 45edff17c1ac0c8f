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
import dev.rota.cluster.assign.WorkProtocol.RequestWork;
import dev.rota.http.testing.ApiCalls;
import dev.rota.http.testing.JUnit5RouteTest;
import dev.rota.http.testing.RotaTestCluster;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest.BodyPublishers;
import java.nio.charset.StandardCharsets;
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
          "tenant",
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
    assertEquals(List.of("name", "capabilities", "metadata", "newInput"), fieldNames(agent));
    assertEquals(agentId, agent.get("name").asText());
    assertEquals("[\"" + cap + "\"]", agent.get("capabilities").toString());
    assertTrue(agent.get("metadata").isObject());
    JsonNode lease = api.get("/v1/agents/" + agentId).get("lease");
    assertEquals(a.get("grantedAt").asText(), lease.get("grantedAt").asText());
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
    Thread.sleep(1000); // the claim parks: no work yet, and the test shows it keeps waiting
    assertFalse(claim.isDone(), "the claim should still be waiting");
    api.notify(agentId, "mention", "{}");
    JsonNode answer = claim.get(10, TimeUnit.SECONDS);

    assertEquals("assigned", answer.get("status").asText(), answer.toString());
    assertEquals("inbox", answer.get("assignment").get("kind").asText());
    assertEquals(agentId, answer.get("assignment").get("agentId").asText());
    assertTrue(Duration.ofNanos(System.nanoTime() - start).toSeconds() < 9);
  }

  /**
   * A long poll answered before its first probe (500 ms) is one ordinary response, with nothing
   * streamed (decision 88); one that waits longer is streamed, a space first.
   */
  @Test
  void aLongPollAnsweredBeforeItsFirstProbeIsOneOrdinaryResponse() throws Exception {
    String agentId = cap + "-a";
    api.register(agentId, cap);
    api.notify(agentId, "mention", "{}");
    ServerBinding binding =
        Http.get(cluster.system())
            .newServerAt("127.0.0.1", 0)
            .bind(cluster.routes(cluster.settings()).route())
            .toCompletableFuture()
            .get(10, TimeUnit.SECONDS);
    try {
      URI uri = URI.create("http://127.0.0.1:" + binding.localAddress().getPort() + "/v1/claims");
      HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

      var quick =
          http.send(
              claimRequest(
                  uri, claimJson("runner-quick", "\"mode\": \"notification\", \"waitSeconds\": 5")),
              ofString());
      var late =
          http.send(claimRequest(uri, claimJson("runner-late", "\"waitSeconds\": 1")), ofString());

      assertEquals(200, quick.statusCode(), quick.body());
      assertTrue(
          quick.headers().firstValue("Content-Length").isPresent(), quick.headers().toString());
      assertTrue(quick.body().startsWith("{\"status\":\"assigned\""), quick.body());
      assertEquals(200, late.statusCode(), late.body());
      assertEquals("chunked", late.headers().firstValue("Transfer-Encoding").orElse(""));
      assertTrue(late.body().startsWith(" "), "a streamed body writes a space first");
      assertEquals("{\"status\":\"none\"}", late.body().strip());
    } finally {
      binding.unbind().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }
  }

  private static java.net.http.HttpRequest claimRequest(URI uri, String json) {
    return java.net.http.HttpRequest.newBuilder(uri)
        .header("Content-Type", "application/json")
        .POST(BodyPublishers.ofString(json))
        .build();
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
                      .header("Content-Type", "application/json")
                      .POST(
                          BodyPublishers.ofString(claimJson("runner-socket", "\"waitSeconds\": 3")))
                      .build(),
                  ofString());

      assertEquals(200, response.statusCode(), response.body());
      assertEquals("{\"status\":\"none\"}", response.body().strip());
      assertTrue(Duration.ofNanos(System.nanoTime() - start).toMillis() >= 3000);
    } finally {
      binding.unbind().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }
  }

  /**
   * A runner that gives up its long poll (closes the connection) before work appears: the lease
   * granted for it is handed back at once, no attempt used, and the next runner gets the agent. The
   * lease is an hour long, so only a hand-back can free the agent within the wait.
   */
  @Test
  void handsBackTheLeaseOfALongPollWhoseRunnerDisconnected() throws Exception {
    String agentId = cap + "-a";
    api.register(agentId, cap);
    HttpSettings settings = cluster.settings();
    ClaimRoutes claims =
        new ClaimRoutes(
            cluster.rota().dispatcher(), cluster.system(), new ApiAuth(settings), settings, 300);
    ServerBinding binding =
        Http.get(cluster.system())
            .newServerAt("127.0.0.1", 0)
            .bind(new ApiErrors(settings).handle(() -> claims.route()))
            .toCompletableFuture()
            .get(10, TimeUnit.SECONDS);
    try {
      String claim =
          claimJson(
              "runner-gone",
              "\"mode\": \"notification\", \"waitSeconds\": 30, \"leaseSeconds\": 3600");
      byte[] body = claim.getBytes(StandardCharsets.UTF_8);
      try (Socket socket = new Socket("127.0.0.1", binding.localAddress().getPort())) {
        OutputStream out = socket.getOutputStream();
        out.write(
            ("POST /v1/claims HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                    + "Content-Length: "
                    + body.length
                    + "\r\n\r\n")
                .getBytes(StandardCharsets.US_ASCII));
        out.write(body);
        out.flush();
        eventually(() -> assertEquals(1, claims.longPolls(), "the claim should be waiting"));
        String head = new String(socket.getInputStream().readNBytes(17), StandardCharsets.US_ASCII);
        assertEquals("HTTP/1.1 200 OK\r\n", head, "a long poll is answered 200 at once");
      }
      // The runner is gone; its long poll is still parked at the dispatcher. Some seconds later
      // (the route's probes find the connection closed) work appears and is granted to it.
      // Nothing observable says when the probes noticed, so the test lets the time pass.
      Thread.sleep(3000);
      api.notify(agentId, "mention", "{\"k\": 1}");

      eventually(
          () -> {
            JsonNode view = api.get("/v1/agents/" + agentId);
            assertTrue(view.get("lease").isNull(), "still leased: " + view);
          });
      String history = api.get("/v1/agents/" + agentId + "/history").toString();
      assertTrue(history.contains("runner-gone"), "never granted to the gone runner: " + history);
      JsonNode next = api.assignment("runner-next", cap);
      assertEquals(agentId, next.get("agentId").asText());
      assertEquals(1, next.get("attempt").asInt(), "the hand-back used an attempt: " + next);
      assertEquals(1, next.get("notifications").get(0).get("attempt").asInt(), next.toString());
    } finally {
      binding.unbind().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }
  }

  /**
   * The route gives up waiting (503) and only then the dispatcher grants: that lease is handed back
   * too. A dispatcher that passes requests on 600 ms late, behind a 300 ms ask timeout.
   */
  @Test
  void handsBackAGrantThatArrivesAfterTheClaimWasAnswered503() {
    String agentId = cap + "-a";
    api.register(agentId, cap);
    api.notify(agentId, "mention", "{}");
    ActorRef<Dispatcher.Command> real = cluster.rota().dispatcher();
    ActorRef<Dispatcher.Command> slow =
        cluster
            .system()
            .systemActorOf(
                Behaviors.<Dispatcher.Command>withTimers(
                    timers ->
                        Behaviors.receiveMessage(
                            message -> {
                              if (message instanceof Late late) {
                                real.tell(late.request());
                              } else {
                                timers.startSingleTimer(
                                    new Late((RequestWork) message), Duration.ofMillis(600));
                              }
                              return Behaviors.same();
                            })),
                "slow-dispatcher",
                Props.empty());
    HttpSettings fast =
        HttpSettings.from(
            ConfigFactory.parseString("rota.http.ask-timeout = 300ms")
                .withFallback(cluster.config()));
    ClaimRoutes claims = new ClaimRoutes(slow, cluster.system(), new ApiAuth(fast), fast, 3600);

    TestRouteResult result =
        testRoute(new ApiErrors(fast).handle(() -> claims.route()))
            .run(
                jsonRequest(
                    "POST",
                    "/v1/claims",
                    claimJson(
                        "runner-late", "\"mode\": \"notification\", \"leaseSeconds\": 3600")));
    assertError(result, 503, "unavailable", "dispatcher did not answer");

    eventually(
        () -> {
          JsonNode view = api.get("/v1/agents/" + agentId);
          assertTrue(view.get("lease").isNull(), "still leased: " + view);
          assertTrue(view.get("lastActivatedAt").isNull(), "activated: " + view);
        });
    JsonNode next = api.assignment("runner-next", cap);
    assertEquals(agentId, next.get("agentId").asText());
    assertEquals(1, next.get("attempt").asInt(), "the hand-back used an attempt: " + next);
  }

  /** A request the slow dispatcher passes on later. */
  private record Late(RequestWork request) implements Dispatcher.Command {}

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

  /**
   * One runner token cannot hold every waiting claim of a node: past
   * rota.http.max-long-polls-per-token its next long poll is 503 at once, while another token's is
   * still taken.
   */
  @Test
  void capsTheLongPollsOfOneToken() throws Exception {
    assertTheLongPollCapCountsEachToken(
        """
        rota.http.tokens = [
          { token = "runner-a", roles = [runner] }
          { token = "runner-b", roles = [runner] }
        ]
        """);
  }

  /** Tokens written on one line of ROTA_API_TOKENS are each capped on their own, not together. */
  @Test
  void tokensOnOneLineOfTheTokenListHaveALongPollCapEach() throws Exception {
    assertTheLongPollCapCountsEachToken(
        "rota.http.tokens-list = \"runner-a:runner;runner-b:runner\"");
  }

  private void assertTheLongPollCapCountsEachToken(String tokens) throws Exception {
    HttpSettings secured =
        HttpSettings.from(
            ConfigFactory.parseString(
                    tokens
                        + """

                        rota.http.max-long-polls = 10
                        rota.http.max-long-polls-per-token = 2
                        """)
                .withFallback(cluster.config()));
    ClaimRoutes claims =
        new ClaimRoutes(
            cluster.rota().dispatcher(), cluster.system(), new ApiAuth(secured), secured, 300);
    ServerBinding binding =
        Http.get(cluster.system())
            .newServerAt("127.0.0.1", 0)
            .bind(new ApiErrors(secured).handle(() -> claims.route()))
            .toCompletableFuture()
            .get(10, TimeUnit.SECONDS);
    HttpClient http = HttpClient.newHttpClient();
    URI uri = URI.create("http://127.0.0.1:" + binding.localAddress().getPort() + "/v1/claims");
    java.util.function.BiFunction<String, String, java.net.http.HttpRequest> claim =
        (token, runner) ->
            java.net.http.HttpRequest.newBuilder(uri)
                .header("Content-Type", "application/json")
                .header("Authorization", "Bearer " + token)
                .POST(BodyPublishers.ofString(claimJson(runner, "\"waitSeconds\": 3")))
                .build();
    try {
      var first = http.sendAsync(claim.apply("runner-a", "a1"), ofString());
      var second = http.sendAsync(claim.apply("runner-a", "a2"), ofString());
      eventually(() -> assertEquals(2, claims.longPolls(), "two claims of runner-a wait"));

      var third = http.send(claim.apply("runner-a", "a3"), ofString());
      assertEquals(503, third.statusCode(), third.body());
      assertTrue(third.body().contains("max-long-polls-per-token"), third.body());
      assertTrue(third.headers().firstValue("Retry-After").isPresent());

      var other = http.sendAsync(claim.apply("runner-b", "b1"), ofString());
      eventually(() -> assertEquals(3, claims.longPolls(), "runner-b's claim waits too"));
      for (var waiting : List.of(first, second, other)) {
        assertEquals(200, waiting.get(10, TimeUnit.SECONDS).statusCode());
      }
      eventually(() -> assertEquals(0, claims.longPolls()));
      var again = http.sendAsync(claim.apply("runner-a", "a4"), ofString());
      assertEquals(200, again.get(10, TimeUnit.SECONDS).statusCode(), "the slots came back");
    } finally {
      binding.unbind().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }
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
    ClaimRoutes claims = new ClaimRoutes(silent, cluster.system(), new ApiAuth(fast), fast, 300);

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
