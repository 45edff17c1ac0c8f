package dev.rota.http;

import static dev.rota.http.testing.ApiCalls.withToken;
import static dev.rota.http.testing.RouteAssertions.assertError;
import static dev.rota.http.testing.RouteAssertions.body;
import static dev.rota.http.testing.RouteAssertions.fieldNames;
import static dev.rota.http.testing.RouteAssertions.jsonRequest;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.fasterxml.jackson.databind.JsonNode;
import com.typesafe.config.ConfigFactory;
import dev.rota.cluster.assign.Dispatcher;
import dev.rota.core.model.Ids;
import dev.rota.http.testing.ApiCalls;
import dev.rota.http.testing.JUnit5RouteTest;
import dev.rota.http.testing.RotaTestCluster;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse.BodyHandlers;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.testkit.typed.javadsl.LogCapturingExtension;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Props;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.http.javadsl.Http;
import org.apache.pekko.http.javadsl.ServerBinding;
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
import org.junit.jupiter.params.provider.ValueSource;
import org.slf4j.LoggerFactory;

/**
 * Heartbeat, complete and fail under {@code /v1/leases/{leaseId}} on leases claimed through {@code
 * POST /v1/claims}, against real agents of a one-node cluster (in-memory journal). Each test's
 * agents require a capability named after the test.
 */
@ExtendWith(LogCapturingExtension.class)
class LeaseRoutesTest extends JUnit5RouteTest {
  private static RotaTestCluster cluster;

  private final ApiCalls api = new ApiCalls(this::run);
  private String cap;
  private String agentId;

  @BeforeAll
  static void startCluster() {
    cluster = RotaTestCluster.inMemory("LeaseRoutesTest");
  }

  @AfterAll
  static void stopCluster() {
    cluster.shutdown();
  }

  @BeforeEach
  void agentPerTest(TestInfo info) {
    // Each invocation of a parameterized test gets its own agent too.
    // At most 64 characters, like every capability.
    String method = info.getTestMethod().orElseThrow().getName();
    cap =
        method.substring(0, Math.min(40, method.length()))
            + "-"
            + Integer.toHexString(method.hashCode())
            + "-"
            + Integer.toHexString(info.getDisplayName().hashCode());
    agentId = cap + "-a";
    api.register(agentId, cap);
  }

  @Override
  protected ActorSystem<?> typedSystem() {
    return cluster.system();
  }

  private TestRouteResult run(HttpRequest request) {
    return testRoute(cluster.routes(cluster.settings()).route()).run(request);
  }

  /** Notifies the test's agent once and claims it; the assignment. */
  private JsonNode claimWithInbox() {
    api.notify(agentId, "mention", "{\"postId\": \"p9\"}");
    return api.assignment("runner-" + cap, cap);
  }

  /** A report by the runner {@link #claimWithInbox} claims as. */
  private TestRouteResult lease(String leaseId, String action, String json) {
    return leaseAs("runner-" + cap, leaseId, action, json);
  }

  /** A report whose body is {@code json} with {@code runnerId} added. */
  private TestRouteResult leaseAs(String runnerId, String leaseId, String action, String json) {
    return api.post("/v1/leases/" + leaseId + "/" + action, withRunner(runnerId, json));
  }

  private static String withRunner(String runnerId, String json) {
    String rest = json.isBlank() ? "}" : json.strip().substring(1).strip();
    return "{\"runnerId\": \"" + runnerId + "\"" + (rest.equals("}") ? "" : ", ") + rest;
  }

  /** The agent still holds the lease of this assignment (the view shows no lease id). */
  private void assertStillHeld(JsonNode assignment) {
    JsonNode lease = agent().get("lease");
    assertEquals(assignment.get("grantedAt").asText(), lease.get("grantedAt").asText(), "" + lease);
    assertEquals(assignment.get("expiresAt").asText(), lease.get("expiresAt").asText(), "" + lease);
  }

  private JsonNode agent() {
    return api.get("/v1/agents/" + agentId);
  }

  @Test
  void heartbeatExtendsTheLeaseByItsOwnLengthFromNow() {
    JsonNode a =
        api.claim(
                "{\"runnerId\": \"r-hb\", \"capabilities\": [\""
                    + cap
                    + "\"], \"leaseSeconds\": 100}")
            .get("assignment");
    Instant before = Instant.now();

    JsonNode beat =
        body(leaseAs("r-hb", a.get("leaseId").asText(), "heartbeat", "").assertStatusCode(200));

    assertEquals(List.of("expiresAt"), fieldNames(beat));
    Instant expiresAt = Instant.parse(beat.get("expiresAt").asText());
    assertTrue(!expiresAt.isBefore(before.plusSeconds(100)), expiresAt + " vs " + before);
    assertTrue(expiresAt.isBefore(Instant.now().plusSeconds(101)), expiresAt.toString());
    assertEquals(expiresAt, Instant.parse(agent().get("lease").get("expiresAt").asText()));
  }

  @Test
  void completeAnswers200AndReadsEveryCarriedNotification() {
    String leaseId = claimWithInbox().get("leaseId").asText();

    JsonNode done =
        body(
            lease(leaseId, "complete", "{\"result\": {\"summary\": \"ok\"}}")
                .assertStatusCode(200));

    assertEquals(List.of("completedAt"), fieldNames(done));
    Instant completedAt = Instant.parse(done.get("completedAt").asText());
    JsonNode view = agent();
    assertEquals(0, view.get("inbox").get("unread").asInt());
    assertEquals(1, view.get("activationCount").asLong());
    assertEquals(completedAt, Instant.parse(view.get("lastActivatedAt").asText()));
    assertTrue(view.get("lease").isNull());
  }

  /** The body of a report carrying {@code next}, a claim for this test's capability. */
  private String withNext(String report, String nextFields) {
    String next =
        "\"next\": {\"capabilities\": [\""
            + cap
            + "\"]"
            + (nextFields.isBlank() ? "" : ", " + nextFields)
            + "}";
    String rest = report.strip().substring(1).strip();
    return "{" + next + (rest.equals("}") ? "}" : ", " + rest);
  }

  @Test
  void completeWithNextAnswersTheCompletionAndTheNextAssignmentInOneResponse() {
    String second = cap + "-b";
    api.register(second, cap);
    String leaseId = claimWithInbox().get("leaseId").asText();
    api.notify(second, "mention", "{}");

    JsonNode done =
        body(
            lease(leaseId, "complete", withNext("{\"result\": {\"ok\": true}}", ""))
                .assertStatusCode(200));

    assertEquals(List.of("completedAt", "next"), fieldNames(done));
    JsonNode next = done.get("next");
    assertEquals("assigned", next.get("status").asText(), done.toString());
    JsonNode assignment = next.get("assignment");
    assertEquals(second, assignment.get("agentId").asText());
    assertEquals(1, assignment.get("notifications").size());
    // The completion is durable and the next lease is held by the same runner.
    JsonNode view = agent();
    assertEquals(1, view.get("activationCount").asLong());
    assertEquals(0, view.get("inbox").get("unread").asInt());
    assertTrue(view.get("lease").isNull());
    lease(assignment.get("leaseId").asText(), "heartbeat", "").assertStatusCode(200);
  }

  @Test
  void failWithNextAnswersTheFailureAndANextClaimThatFoundNothing() {
    String leaseId = claimWithInbox().get("leaseId").asText();

    JsonNode failed =
        body(
            lease(
                    leaseId,
                    "fail",
                    withNext("{\"action\": \"discard\"}", "\"mode\": \"notification\""))
                .assertStatusCode(200));

    assertEquals(List.of("action", "failedAt", "next"), fieldNames(failed));
    assertEquals("discard", failed.get("action").asText());
    assertEquals("none", failed.get("next").get("status").asText(), failed.toString());
    assertEquals(0, agent().get("inbox").get("unread").asInt());
    assertTrue(agent().get("lease").isNull());
  }

  @Test
  void aLostLeaseAnswers410WithoutNextAndClaimsNothing() {
    String second = cap + "-b";
    api.register(second, cap);
    String leaseId = claimWithInbox().get("leaseId").asText();
    lease(leaseId, "complete", "").assertStatusCode(200);
    api.notify(second, "mention", "{}");

    TestRouteResult lost = lease(leaseId, "complete", withNext("{}", ""));

    assertError(lost, 410, "lease_lost", leaseId);
    assertFalse(body(lost).has("next"), lost.entityString());
    JsonNode waiting = api.get("/v1/agents/" + second);
    assertTrue(waiting.get("lease").isNull(), waiting.toString());
    assertEquals(1, waiting.get("inbox").get("unread").asInt());
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "wait over 60      | \"waitSeconds\": 61         | waitSeconds",
        "unknown mode      | \"mode\": \"sometimes\"     | mode",
        "lease too short   | \"leaseSeconds\": 1         | leaseSeconds",
        "runnerId in next  | \"runnerId\": \"other\"     | runnerId",
      })
  void anInvalidNextIs400AndTheReportIsNotMade(String why, String nextFields, String field) {
    JsonNode claimed = claimWithInbox();
    String leaseId = claimed.get("leaseId").asText();

    assertError(lease(leaseId, "complete", withNext("{}", nextFields)), 400, "invalid", field);
    assertError(lease(leaseId, "fail", withNext("{}", nextFields)), 400, "invalid", field);

    assertStillHeld(claimed);
    assertEquals(1, agent().get("inbox").get("unread").asInt());
  }

  /** Where a claim would be 503, a next claim answers none: its completion already happened. */
  @Test
  void aNextClaimTheDispatcherDoesNotAnswerIsNoneAndTheCompletionStands() {
    String leaseId = claimWithInbox().get("leaseId").asText();
    ActorRef<Dispatcher.Command> silent =
        cluster.system().systemActorOf(Behaviors.ignore(), "silent-" + cap, Props.empty());
    HttpSettings fast =
        HttpSettings.from(
            ConfigFactory.parseString("rota.http.ask-timeout = 300ms")
                .withFallback(cluster.config()));
    ApiAuth auth = new ApiAuth(fast);
    LeaseRoutes leases =
        new LeaseRoutes(
            new AgentGateway(cluster.system(), Duration.ofSeconds(5)),
            new ClaimRoutes(silent, cluster.system(), auth, fast, 300),
            auth,
            fast);

    JsonNode done =
        body(
            testRoute(new ApiErrors(fast).handle(() -> leases.route()))
                .run(
                    jsonRequest(
                        "POST",
                        "/v1/leases/" + leaseId + "/complete",
                        withRunner("runner-" + cap, withNext("{}", ""))))
                .assertStatusCode(200));

    assertEquals("none", done.get("next").get("status").asText(), done.toString());
    assertEquals(1, agent().get("activationCount").asLong());
  }

  /**
   * A next claim with a wait is a long poll: once nothing fits for a probe interval the report's
   * fields are written at once, spaces follow while it waits, and the assignment when work comes.
   */
  @Test
  void aLongPollNextStreamsTheReportThenTheAssignmentWhenWorkArrives() throws Exception {
    String second = cap + "-b";
    api.register(second, cap);
    String leaseId = claimWithInbox().get("leaseId").asText();
    ServerBinding binding =
        Http.get(cluster.system())
            .newServerAt("127.0.0.1", 0)
            .bind(cluster.routes(cluster.settings()).route())
            .toCompletableFuture()
            .get(10, TimeUnit.SECONDS);
    try {
      URI uri =
          URI.create(
              "http://127.0.0.1:"
                  + binding.localAddress().getPort()
                  + "/v1/leases/"
                  + leaseId
                  + "/complete");
      var response =
          HttpClient.newBuilder()
              .version(HttpClient.Version.HTTP_1_1)
              .build()
              .send(
                  java.net.http.HttpRequest.newBuilder(uri)
                      .header("Content-Type", "application/json")
                      .POST(
                          BodyPublishers.ofString(
                              withRunner(
                                  "runner-" + cap,
                                  withNext(
                                      "{}", "\"mode\": \"notification\", \"waitSeconds\": 30"))))
                      .build(),
                  BodyHandlers.ofInputStream());
      assertEquals(200, response.statusCode());
      assertEquals("chunked", response.headers().firstValue("Transfer-Encoding").orElse(""));
      try (InputStream in = response.body()) {
        String head = readThrough(in, "\"next\": ");
        assertTrue(head.startsWith("{\"completedAt\":\""), head);
        // The completion is durable before any of its answer is written.
        assertEquals(1, agent().get("activationCount").asLong());

        api.notify(second, "mention", "{}");
        JsonNode whole = JsonSupport.mapper().readTree(head + new String(in.readAllBytes(), UTF_8));

        assertEquals(List.of("completedAt", "next"), fieldNames(whole));
        assertEquals("assigned", whole.get("next").get("status").asText(), whole.toString());
        assertEquals(second, whole.get("next").get("assignment").get("agentId").asText());
      }
    } finally {
      binding.unbind().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }
  }

  /** Reads until {@code marker} followed by a space has been read (the first probe). */
  private static String readThrough(InputStream in, String marker) throws IOException {
    StringBuilder read = new StringBuilder();
    int b;
    while (read.indexOf(marker.strip() + " ") < 0 && (b = in.read()) >= 0) {
      read.append((char) b);
    }
    return read.toString();
  }

  @Test
  void aRunnerReportingOnAnotherRunnersLeaseGets409AndChangesNothing() {
    JsonNode claimed = claimWithInbox();
    String leaseId = claimed.get("leaseId").asText();

    assertError(leaseAs("intruder", leaseId, "heartbeat", ""), 409, "lease_not_held", "runner");
    assertError(
        leaseAs("intruder", leaseId, "complete", "{\"result\": {}}"),
        409,
        "lease_not_held",
        "runner");
    assertError(
        leaseAs("intruder", leaseId, "fail", "{\"action\": \"discard\"}"),
        409,
        "lease_not_held",
        "runner");

    assertStillHeld(claimed);
    assertEquals(1, agent().get("inbox").get("unread").asInt());
    assertEquals(0, agent().get("deadLetters").asInt());
    lease(leaseId, "complete", "").assertStatusCode(200);
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"heartbeat", "complete", "fail"})
  void aReportWithoutRunnerIdIs400NamingTheField(String action) {
    JsonNode claimed = claimWithInbox();
    String leaseId = claimed.get("leaseId").asText();

    assertError(api.post("/v1/leases/" + leaseId + "/" + action, ""), 400, "invalid", "runnerId");
    assertError(
        api.post("/v1/leases/" + leaseId + "/" + action, "{\"runnerId\": \" \"}"),
        400,
        "invalid",
        "runnerId");
    assertStillHeld(claimed);
  }

  @Test
  void theAccessLogOfAHeartbeatNamesNoLeaseId() {
    String leaseId = claimWithInbox().get("leaseId").asText();
    Logger access = (Logger) LoggerFactory.getLogger("dev.rota.http.access");
    ListAppender<ILoggingEvent> lines = new ListAppender<>();
    lines.start();
    Level level = access.getLevel();
    access.setLevel(Level.INFO);
    access.addAppender(lines);
    try {
      run(jsonRequest(
              "POST", "/v1/leases/" + leaseId + "/heartbeat", withRunner("runner-" + cap, "")))
          .assertStatusCode(200);
      run(jsonRequest("POST", "/v1/leases/" + leaseId + "/complete", "{}")).assertStatusCode(400);
    } finally {
      access.detachAppender(lines);
      access.setLevel(level);
    }

    assertEquals(2, lines.list.size(), lines.list.toString());
    for (ILoggingEvent line : lines.list) {
      String whole = line.getFormattedMessage() + " " + line.getKeyValuePairs();
      assertFalse(whole.contains(leaseId), whole);
      assertFalse(whole.contains(leaseId.substring(leaseId.indexOf('.') + 1)), whole);
    }
    assertTrue(
        lines
            .list
            .get(0)
            .getFormattedMessage()
            .startsWith("POST /v1/leases/{redacted}/heartbeat 200"),
        lines.list.get(0).getFormattedMessage());
  }

  @Test
  void completeNeedsNoBody() {
    String leaseId = claimWithInbox().get("leaseId").asText();

    lease(leaseId, "complete", "").assertStatusCode(200);

    assertEquals(1, agent().get("activationCount").asLong());
  }

  @Test
  void answers410LeaseLostToEveryReportAfterCompletion() {
    String leaseId = claimWithInbox().get("leaseId").asText();
    lease(leaseId, "heartbeat", "").assertStatusCode(200);
    lease(leaseId, "complete", "{}").assertStatusCode(200);

    assertError(lease(leaseId, "heartbeat", ""), 410, "lease_lost", leaseId);
    assertError(lease(leaseId, "complete", "{}"), 410, "lease_lost", leaseId);
    assertError(lease(leaseId, "fail", "{\"error\": \"late\"}"), 410, "lease_lost", leaseId);
    assertEquals(1, agent().get("activationCount").asLong());
  }

  @Test
  void failWithRetryUsesAnAttemptSoTheNextClaimIsAttemptTwo() {
    JsonNode first = claimWithInbox();

    JsonNode failed =
        body(
            lease(
                    first.get("leaseId").asText(),
                    "fail",
                    "{\"error\": \"boom\", \"action\": \"retry\"}")
                .assertStatusCode(200));

    assertEquals(List.of("action", "failedAt"), fieldNames(failed));
    assertEquals("retry", failed.get("action").asText());
    Instant.parse(failed.get("failedAt").asText());
    // Another runner: the one that failed it is avoided for a while (rota.runner-health).
    JsonNode second = api.assignment("other-" + cap, cap);
    assertEquals(2, second.get("attempt").asInt());
    assertEquals(2, second.get("notifications").get(0).get("attempt").asInt());
    assertEquals(
        first.get("notifications").get(0).get("notificationId"),
        second.get("notifications").get(0).get("notificationId"));
  }

  @Test
  void failWithoutActionIsARetry() {
    JsonNode first = claimWithInbox();

    JsonNode failed =
        body(lease(first.get("leaseId").asText(), "fail", "{}").assertStatusCode(200));

    assertEquals("retry", failed.get("action").asText());
    assertEquals(2, api.assignment("other-" + cap, cap).get("attempt").asInt());
  }

  @Test
  void failWithSnoozeKeepsTheInboxAndMakesTheAgentWait() {
    String leaseId = claimWithInbox().get("leaseId").asText();

    JsonNode failed =
        body(
            lease(
                    leaseId,
                    "fail",
                    "{\"error\": \"rate limited\", \"action\": \"snooze\", \"snoozeSeconds\": 3600}")
                .assertStatusCode(200));

    assertEquals("snooze", failed.get("action").asText());
    JsonNode view = agent();
    assertEquals("snoozed", view.get("status").asText());
    assertEquals(1, view.get("inbox").get("unread").asInt());
    assertEquals("none", api.claim("runner-" + cap, cap).get("status").asText());
  }

  @Test
  void failWithCancelDeadLettersTheCarriedNotifications() {
    String leaseId = claimWithInbox().get("leaseId").asText();

    lease(leaseId, "fail", "{\"error\": \"not for me\", \"action\": \"cancel\"}")
        .assertStatusCode(200);

    JsonNode view = agent();
    assertEquals(0, view.get("inbox").get("unread").asInt());
    assertEquals(1, view.get("deadLetters").asInt());
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "unknown action            | {\"action\": \"explode\"}                          | action",
        "snooze without seconds    | {\"action\": \"snooze\"}                           | snoozeSeconds",
        "snooze over a day         | {\"action\": \"snooze\", \"snoozeSeconds\": 86401} | snoozeSeconds",
        "negative snooze           | {\"action\": \"snooze\", \"snoozeSeconds\": -1}    | snoozeSeconds",
        "snoozeSeconds with retry  | {\"action\": \"retry\", \"snoozeSeconds\": 60}     | snoozeSeconds",
        "error not text            | {\"error\": 42}                                    | error",
        "unknown field             | {\"reason\": \"x\"}                                 | reason",
      })
  void refusesAnInvalidFailureWith400NamingTheFieldAndKeepsTheLease(
      String why, String json, String field) {
    JsonNode claimed = claimWithInbox();
    String leaseId = claimed.get("leaseId").asText();

    assertError(lease(leaseId, "fail", json), 400, "invalid", field);

    assertStillHeld(claimed);
  }

  @Test
  void refusesACompletionWhoseResultIsNotAnObject() {
    JsonNode claimed = claimWithInbox();
    String leaseId = claimed.get("leaseId").asText();

    assertError(lease(leaseId, "complete", "{\"result\": [1, 2]}"), 400, "invalid", "result");
    assertError(lease(leaseId, "complete", "{\"outcome\": {}}"), 400, "invalid", "outcome");
    assertStillHeld(claimed);
  }

  @Test
  void answers404ForALeaseIdThatNamesNoAgent() {
    String malformed = "not-a-lease";
    String ofNobody = Ids.leaseId("nobody-" + cap, 1);

    assertError(lease(malformed, "heartbeat", ""), 404, "not_found", malformed);
    assertError(lease(ofNobody, "complete", ""), 404, "not_found", ofNobody);
    assertError(lease(ofNobody, "fail", "{}"), 404, "not_found", ofNobody);
  }

  @Test
  void answers410ForALeaseTheAgentDoesNotHold() {
    JsonNode current = claimWithInbox();
    String other = Ids.leaseId(agentId, 99);

    assertError(lease(other, "heartbeat", ""), 410, "lease_lost", other);
    assertStillHeld(current);
  }

  @Test
  void answers405And404ForOtherMethodsAndPaths() {
    String leaseId = Ids.leaseId(agentId, 1);

    assertError(
        run(HttpRequest.GET("/v1/leases/" + leaseId + "/heartbeat")),
        405,
        "method_not_allowed",
        "POST");
    assertError(api.post("/v1/leases/" + leaseId + "/renew", ""), 404, "not_found", "renew");
  }

  @Test
  void leaseReportsNeedARunnerToken() {
    String leaseId = claimWithInbox().get("leaseId").asText();
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
    HttpRequest beat =
        jsonRequest(
            "POST", "/v1/leases/" + leaseId + "/heartbeat", withRunner("runner-" + cap, ""));

    assertError(
        testRoute(cluster.routes(secured).route()).run(beat), 401, "unauthenticated", "token");
    assertError(
        testRoute(cluster.routes(secured).route()).run(withToken(beat, "producer-token")),
        403,
        "forbidden",
        "runner");
    testRoute(cluster.routes(secured).route())
        .run(withToken(beat, "runner-token"))
        .assertStatusCode(200);
  }

  @Test
  void aLeaseThatExpiredIsLost() throws InterruptedException {
    String leaseId =
        api.claim(
                "{\"runnerId\": \"r-short\", \"capabilities\": [\""
                    + cap
                    + "\"], \"leaseSeconds\": 5}")
            .get("assignment")
            .get("leaseId")
            .asText();

    // Past the 5 s lease: polling the lease instead would report on it and keep it alive.
    Thread.sleep(Duration.ofMillis(5300).toMillis());

    assertError(leaseAs("r-short", leaseId, "complete", "{}"), 410, "lease_lost", leaseId);
  }
}
