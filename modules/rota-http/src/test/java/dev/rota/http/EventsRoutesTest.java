package dev.rota.http;

import static dev.rota.http.testing.ApiCalls.withToken;
import static dev.rota.http.testing.RouteAssertions.assertError;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.typesafe.config.ConfigFactory;
import dev.rota.cluster.readmodel.EventFeed;
import dev.rota.http.testing.ApiCalls;
import dev.rota.http.testing.JUnit5RouteTest;
import dev.rota.http.testing.OpenApiContract;
import dev.rota.http.testing.RotaTestCluster;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.apache.pekko.actor.testkit.typed.javadsl.LogCapturingExtension;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.http.javadsl.Http;
import org.apache.pekko.http.javadsl.ServerBinding;
import org.apache.pekko.http.javadsl.model.HttpRequest;
import org.apache.pekko.http.javadsl.model.headers.RawHeader;
import org.apache.pekko.http.javadsl.testkit.TestRouteResult;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@code GET /v1/events} on a one-node cluster on H2, read over a real socket as a client would:
 * the journal's events from the moment of connecting, and the pause switch.
 */
@ExtendWith(LogCapturingExtension.class)
class EventsRoutesTest extends JUnit5RouteTest {
  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final Duration DEADLINE = Duration.ofSeconds(15);

  private static RotaTestCluster cluster;

  private final ApiCalls api = new ApiCalls(this::run);

  @BeforeAll
  static void startCluster() {
    cluster = RotaTestCluster.withDatabase("EventsRoutesTest");
  }

  @AfterAll
  static void stopCluster() {
    cluster.shutdown();
  }

  @Override
  protected ActorSystem<?> typedSystem() {
    return cluster.system();
  }

  private TestRouteResult run(HttpRequest request) {
    return testRoute(cluster.routes(cluster.settings()).route()).run(request);
  }

  @Test
  void streamsTheEventsOfAnActivationAndThePauseSwitchFromConnectingOn() throws Exception {
    api.register("events-before", "events-before");
    String before = api.notify("events-before", "mention", "{}");
    ServerBinding binding =
        Http.get(cluster.system())
            .newServerAt("127.0.0.1", 0)
            .bind(cluster.routes(cluster.settings()).route())
            .toCompletableFuture()
            .get(10, TimeUnit.SECONDS);
    List<String> lines = new CopyOnWriteArrayList<>();
    HttpResponse<Stream<String>> response = null;
    try {
      URI uri = URI.create("http://127.0.0.1:" + binding.localAddress().getPort() + "/v1/events");
      response =
          HttpClient.newHttpClient()
              .sendAsync(
                  java.net.http.HttpRequest.newBuilder(uri).GET().build(), BodyHandlers.ofLines())
              .get(10, TimeUnit.SECONDS);
      assertEquals(200, response.statusCode());
      assertEquals("text/event-stream", response.headers().firstValue("Content-Type").orElse(""));
      Stream<String> body = response.body();
      Thread reader = new Thread(() -> readUntilClosed(body, lines), "sse-reader");
      reader.setDaemon(true);
      reader.start();

      String agentId = "events-a";
      api.register(agentId, "events");
      String notificationId = api.notify(agentId, "mention", "{}");
      String leaseId = api.assignment("runner-events", "events").get("leaseId").asText();
      api.post("/v1/leases/" + leaseId + "/complete", "{\"runnerId\": \"runner-events\"}")
          .assertStatusCode(200);
      try {
        api.post("/admin/pause", "").assertStatusCode(200);
      } finally {
        api.post("/admin/resume", "").assertStatusCode(200);
      }

      List<JsonNode> agent =
          awaitEvents(lines, e -> agentId.equals(e.path("agentId").asText(null)), 3);
      assertEquals(
          List.of("notification.accepted", "lease.granted", "activation.completed"),
          agent.stream().map(e -> e.get("type").asText()).toList(),
          agent.toString());
      assertEquals(notificationId, agent.get(0).get("notificationId").asText());
      assertEquals("mention", agent.get(0).get("notificationType").asText());
      assertEquals(leaseId, agent.get(1).get("leaseId").asText());
      assertEquals("runner-events", agent.get(1).get("runnerId").asText());
      assertEquals("inbox", agent.get(1).get("kind").asText());
      assertEquals(leaseId, agent.get(2).get("leaseId").asText());
      for (JsonNode e : agent) {
        assertTrue(e.get("at").asText().endsWith("Z"), e.toString());
      }

      List<JsonNode> system =
          awaitEvents(lines, e -> e.get("type").asText().startsWith("system."), 2);
      assertEquals(
          List.of("system.paused", "system.resumed"),
          system.stream().map(e -> e.get("type").asText()).toList());
      assertTrue(system.get(0).get("agentId").isNull(), system.get(0).toString());
      assertTrue(system.get(0).has("at"), system.get(0).toString());

      assertTrue(lines.contains("event:lease.granted"), lines.toString());
      assertTrue(
          events(lines).stream().noneMatch(e -> before.equals(e.path("notificationId").asText())),
          "an event written before connecting: " + lines);
    } finally {
      if (response != null) {
        response.body().close();
      }
      binding.unbind().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }
  }

  private static void readUntilClosed(Stream<String> body, List<String> lines) {
    try {
      body.forEach(lines::add);
    } catch (RuntimeException closed) {
      // the test closed the stream
    }
  }

  @Test
  void needsAnAdminToken() {
    HttpSettings secured =
        HttpSettings.from(
            ConfigFactory.parseString(
                    """
                    rota.http.tokens = [
                      { token = "admin-token", roles = [admin] }
                      { token = "producer-token", roles = [producer] }
                    ]
                    """)
                .withFallback(cluster.config()));
    HttpRequest events = HttpRequest.GET("/v1/events");

    TestRouteResult anonymous = testRoute(cluster.routes(secured).route()).run(events);
    TestRouteResult producer =
        testRoute(cluster.routes(secured).route()).run(withToken(events, "producer-token"));

    assertError(anonymous, 401, "unauthenticated", "token");
    assertError(producer, 403, "forbidden", "admin");
  }

  @Test
  void answers405ForAnotherMethodThanGet() {
    assertError(api.post("/v1/events", "{}"), 405, "method_not_allowed", "GET");
  }

  @Test
  void answers503WithoutAReadModel() {
    HttpSettings settings = cluster.settings();
    EventsRoutes withoutReadModel =
        new EventsRoutes(cluster.system(), null, Runnable::run, new ApiAuth(settings));

    TestRouteResult result =
        testRoute(new ApiErrors(settings).handle(() -> withoutReadModel.route()))
            .run(HttpRequest.GET("/v1/events"));

    assertError(result, 503, "unavailable", "journal");
    result.assertHeaderExists("Retry-After", "5");
  }

  @Test
  void everyEventHasAnIdAndResumingAfterOneContinuesWithoutGapOrDuplicate() throws Exception {
    ServerBinding binding = bind(cluster.routes(cluster.settings()).route());
    String agentId = "events-resume";
    try (Sse all = Sse.open(binding, "/v1/events?agentId=" + agentId, null)) {
      api.register(agentId, "events-resume");
      api.notify(agentId, "mention", "{}");
      api.notify(agentId, "mention", "{}");
      String leaseId = api.assignment("runner-resume", "events-resume").get("leaseId").asText();
      // cancel dead-letters both carried notifications: one journal event, three stream events
      api.post(
              "/v1/leases/" + leaseId + "/fail",
              "{\"runnerId\": \"runner-resume\", \"error\": \"boom\", \"action\": \"cancel\"}")
          .assertStatusCode(200);
      api.notify(agentId, "mention", "{}");

      List<SseEvent> events = all.await(7);
      assertEquals(
          List.of(
              "notification.accepted",
              "notification.accepted",
              "lease.granted",
              "activation.failed",
              "notification.dead_lettered",
              "notification.dead_lettered",
              "notification.accepted"),
          events.stream().map(SseEvent::type).toList(),
          events.toString());
      for (int i = 1; i < events.size(); i++) {
        assertTrue(
            EventFeed.Cursor.parse(events.get(i).id())
                .orElseThrow()
                .isAfter(EventFeed.Cursor.parse(events.get(i - 1).id()).orElseThrow()),
            "ids must increase: " + events);
      }
      assertTrue(events.get(4).id().contains("."), "a second object of one event: " + events);
      for (SseEvent e : events) {
        assertEquals(
            java.util.Set.of(),
            OpenApiContract.get().validate("/components/schemas/Event", e.data()),
            "openapi.yaml's Event schema: " + e);
      }

      for (int k = 0; k < events.size(); k++) {
        List<SseEvent> expected = events.subList(k + 1, events.size());
        String after = events.get(k).id();
        try (Sse resumed = Sse.open(binding, "/v1/events?agentId=" + agentId, after);
            Sse since =
                Sse.open(binding, "/v1/events?agentId=" + agentId + "&since=" + after, null)) {
          assertEquals(expected, resumed.await(expected.size()), "Last-Event-ID " + after);
          assertEquals(expected, since.await(expected.size()), "since=" + after);
        }
      }
    } finally {
      binding.unbind().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }
  }

  @Test
  void filtersByAgentAndType() throws Exception {
    ServerBinding binding = bind(cluster.routes(cluster.settings()).route());
    try (Sse grants =
            Sse.open(binding, "/v1/events?types=lease.granted,activation.completed", null);
        Sse one = Sse.open(binding, "/v1/events?agentId=events-filter-b", null)) {
      for (String agentId : List.of("events-filter-a", "events-filter-b")) {
        api.register(agentId, agentId);
        api.notify(agentId, "mention", "{}");
        String leaseId = api.assignment("runner-" + agentId, agentId).get("leaseId").asText();
        api.post(
                "/v1/leases/" + leaseId + "/complete",
                "{\"runnerId\": \"" + "runner-" + agentId + "\"}")
            .assertStatusCode(200);
      }

      List<SseEvent> granted =
          grants.await(4).stream()
              .filter(e -> e.data().path("agentId").asText().startsWith("events-filter"))
              .toList();
      assertEquals(
          List.of("lease.granted", "activation.completed", "lease.granted", "activation.completed"),
          granted.stream().map(SseEvent::type).toList());
      List<SseEvent> ofB = one.await(3);
      assertEquals(
          List.of("notification.accepted", "lease.granted", "activation.completed"),
          ofB.stream().map(SseEvent::type).toList());
      assertTrue(
          ofB.stream().allMatch(e -> e.data().get("agentId").asText().equals("events-filter-b")));
    } finally {
      binding.unbind().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }
  }

  @Test
  void answers410GoneWithTheOldestRetainedIdForAPositionRetentionRemovedEventsAfter()
      throws Exception {
    cluster.database().execute("update journal_retention set removed_through = 1000000");
    try {
      TestRouteResult gone = api.run(HttpRequest.GET("/v1/events?since=999999"));
      assertEquals(410, gone.statusCode(), gone.entityString());
      JsonNode body = MAPPER.readTree(gone.entityString());
      assertEquals("gone", body.get("error").asText());
      // Nothing above the removed range is held in this journal: the next id is the oldest.
      assertEquals("1000001", body.get("oldestRetainedId").asText());
      TestRouteResult header =
          api.run(
              HttpRequest.GET("/v1/events").addHeader(RawHeader.create("Last-Event-ID", "7.2")));
      assertEquals(410, header.statusCode(), header.entityString());
    } finally {
      cluster.database().execute("update journal_retention set removed_through = 0");
    }
  }

  @Test
  void refusesAMalformedResumePointAndUnknownTypes() {
    assertError(
        api.run(HttpRequest.GET("/v1/events").addHeader(RawHeader.create("Last-Event-ID", "abc"))),
        400,
        "invalid",
        "Last-Event-ID");
    assertError(api.run(HttpRequest.GET("/v1/events?since=-1")), 400, "invalid", "Last-Event-ID");
    assertError(
        api.run(HttpRequest.GET("/v1/events?types=lease.granted,lease.stolen")),
        400,
        "invalid",
        "types");
    assertError(api.run(HttpRequest.GET("/v1/events?agentId=no%20way")), 400, "invalid", "agentId");
  }

  @Test
  void servesAtMostMaxClientsStreamsAndTakesMoreOnceOneEnds() throws Exception {
    HttpSettings settings = cluster.settings();
    EventsRoutes capped =
        new EventsRoutes(
            cluster.system(),
            cluster.rota().readModel(),
            cluster.system().executionContext(),
            new ApiAuth(settings),
            1,
            1,
            Duration.ofMillis(200));
    ServerBinding binding = bind(new ApiErrors(settings).handle(() -> capped.route()));
    try {
      // A raw socket, so that closing it closes the connection at once.
      java.net.Socket first = new java.net.Socket("127.0.0.1", binding.localAddress().getPort());
      first
          .getOutputStream()
          .write(
              "GET /v1/events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
                  .getBytes(java.nio.charset.StandardCharsets.US_ASCII));
      String status =
          new java.io.BufferedReader(
                  new java.io.InputStreamReader(
                      first.getInputStream(), java.nio.charset.StandardCharsets.US_ASCII))
              .readLine();
      assertEquals("HTTP/1.1 200 OK", status);
      Answer refused = get(binding, "/v1/events");
      assertEquals(503, refused.statusCode(), refused.body());
      assertEquals("5", refused.headers().firstValue("Retry-After").orElse(null));
      assertTrue(refused.body().contains("1 clients"), refused.body());

      first.setSoLinger(true, 0);
      first.close();
      await()
          .atMost(DEADLINE)
          .pollInterval(Duration.ofMillis(20))
          .untilAsserted(
              () ->
                  assertEquals(
                      0, capped.clients(), "the closed stream's place was not given back"));
      try (Sse again = Sse.open(binding, "/v1/events", null)) {
        assertEquals(1, capped.clients());
      }
    } finally {
      binding.unbind().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }
  }

  /**
   * The admin tokens of one tenant cannot take every stream of a node: past max-clients-per-tenant
   * the tenant's next stream is 503, while another tenant's and an unscoped admin's are still
   * served, and the tenant's place comes back when one of its streams ends.
   */
  @Test
  void aTenantsStreamsCannotTakeEveryPlaceOfTheNode() throws Exception {
    HttpSettings settings =
        HttpSettings.from(
            ConfigFactory.parseString(
                    """
                    rota.http.tokens = [
                      { token = "acme-1", roles = [admin], tenants = [acme] }
                      { token = "acme-2", roles = [admin], tenants = [acme] }
                      { token = "beta-1", roles = [admin], tenants = [beta] }
                      { token = "root", roles = [admin] }
                    ]
                    """)
                .withFallback(cluster.config()));
    EventsRoutes capped =
        new EventsRoutes(
            cluster.system(),
            cluster.rota().readModel(),
            cluster.system().executionContext(),
            new ApiAuth(settings),
            4,
            2,
            Duration.ofMillis(200));
    ServerBinding binding = bind(new ApiErrors(settings).handle(() -> capped.route()));
    try (Sse first = Sse.open(binding, "/v1/events", null, "acme-1");
        Sse second = Sse.open(binding, "/v1/events", null, "acme-2")) {
      Answer refused = get(binding, "/v1/events", "acme-1");
      assertEquals(503, refused.statusCode(), refused.body());
      assertTrue(refused.body().contains("max-clients-per-tenant"), refused.body());
      assertTrue(refused.body().contains("acme"), refused.body());
      assertEquals(2, capped.clients(), "a refused stream holds no place");

      try (Sse beta = Sse.open(binding, "/v1/events", null, "beta-1");
          Sse root = Sse.open(binding, "/v1/events", null, "root")) {
        assertEquals(4, capped.clients());
      }
      second.close();
      await()
          .atMost(DEADLINE)
          .pollInterval(Duration.ofMillis(20))
          .untilAsserted(() -> assertEquals(1, capped.clients()));
      try (Sse again = Sse.open(binding, "/v1/events", null, "acme-2")) {
        assertEquals(2, capped.clients());
      }
    } finally {
      binding.unbind().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }
  }

  private ServerBinding bind(org.apache.pekko.http.javadsl.server.Route route) throws Exception {
    return Http.get(cluster.system())
        .newServerAt("127.0.0.1", 0)
        .bind(route)
        .toCompletableFuture()
        .get(10, TimeUnit.SECONDS);
  }

  private static Answer get(ServerBinding binding, String path) throws Exception {
    return get(binding, path, null);
  }

  /** A stream that should be refused: a stream served instead is closed, with an empty body. */
  private static Answer get(ServerBinding binding, String path, String token) throws Exception {
    java.net.http.HttpRequest.Builder request =
        java.net.http.HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + binding.localAddress().getPort() + path))
            .GET();
    if (token != null) {
      request.header("Authorization", "Bearer " + token);
    }
    HttpResponse<Stream<String>> response =
        HttpClient.newHttpClient()
            .sendAsync(request.build(), BodyHandlers.ofLines())
            .get(10, TimeUnit.SECONDS);
    String body;
    if (response.statusCode() == 200) {
      response.body().close();
      body = "";
    } else {
      body = response.body().collect(java.util.stream.Collectors.joining("\n"));
    }
    return new Answer(response.statusCode(), body, response.headers());
  }

  /** The status, body and headers of a request answered at once. */
  private record Answer(int statusCode, String body, java.net.http.HttpHeaders headers) {}

  /** One event as a client reads it: the SSE id, event type and JSON data. */
  record SseEvent(String id, String type, JsonNode data) {}

  /** A stream read over a real socket into memory until closed. */
  static final class Sse implements AutoCloseable {
    private final HttpResponse<Stream<String>> response;
    private final List<String> lines = new CopyOnWriteArrayList<>();

    private Sse(HttpResponse<Stream<String>> response) {
      this.response = response;
      Thread reader = new Thread(() -> readUntilClosed(response.body(), lines), "sse-reader");
      reader.setDaemon(true);
      reader.start();
    }

    static Sse open(ServerBinding binding, String path, String lastEventId) throws Exception {
      return open(binding, path, lastEventId, null);
    }

    static Sse open(ServerBinding binding, String path, String lastEventId, String token)
        throws Exception {
      java.net.http.HttpRequest.Builder request =
          java.net.http.HttpRequest.newBuilder(
                  URI.create("http://127.0.0.1:" + binding.localAddress().getPort() + path))
              .GET();
      if (lastEventId != null) {
        request.header("Last-Event-ID", lastEventId);
      }
      if (token != null) {
        request.header("Authorization", "Bearer " + token);
      }
      HttpResponse<Stream<String>> response =
          HttpClient.newHttpClient()
              .sendAsync(request.build(), BodyHandlers.ofLines())
              .get(10, TimeUnit.SECONDS);
      assertEquals(200, response.statusCode(), path);
      return new Sse(response);
    }

    /** The events so far, once there are at least {@code count} (or the deadline passed). */
    List<SseEvent> await(int count) {
      return awaitAtMostDeadline(() -> parse(lines), events -> events.size() >= count);
    }

    private static List<SseEvent> parse(List<String> lines) {
      List<SseEvent> events = new ArrayList<>();
      String id = null;
      String type = null;
      String data = null;
      for (String line : lines) {
        if (line.startsWith("id:")) {
          id = line.substring(3).trim();
        } else if (line.startsWith("event:")) {
          type = line.substring(6).trim();
        } else if (line.startsWith("data:")) {
          data = line.substring(5).trim();
        } else if (line.isEmpty()) {
          if (data != null) {
            try {
              events.add(new SseEvent(id, type, MAPPER.readTree(data)));
            } catch (Exception e) {
              throw new AssertionError("not JSON: " + data, e);
            }
          }
          id = null;
          type = null;
          data = null;
        }
      }
      return events;
    }

    @Override
    public void close() {
      response.body().close();
    }
  }

  /** The JSON objects of the stream's {@code data:} lines so far. */
  private static List<JsonNode> events(List<String> lines) {
    List<JsonNode> events = new ArrayList<>();
    for (String line : lines) {
      if (line.startsWith("data:")) {
        try {
          events.add(MAPPER.readTree(line.substring("data:".length()).trim()));
        } catch (Exception e) {
          throw new AssertionError("not JSON: " + line, e);
        }
      }
    }
    return events;
  }

  /** Waits (up to a bound) for at least {@code count} matching events; returns all matching. */
  private static List<JsonNode> awaitEvents(
      List<String> lines, Predicate<JsonNode> matching, int count) {
    return awaitAtMostDeadline(
        () -> events(lines).stream().filter(matching).toList(), found -> found.size() >= count);
  }

  /**
   * The value of {@code probe} once {@code enough} holds, or its value at the deadline: the caller
   * asserts on what it got, so a shortfall fails with the events that did come.
   */
  private static <T> T awaitAtMostDeadline(Supplier<T> probe, Predicate<? super T> enough) {
    try {
      return org.awaitility.Awaitility.await()
          .atMost(DEADLINE)
          .pollDelay(Duration.ZERO)
          .pollInterval(Duration.ofMillis(50))
          .until(probe::get, enough::test);
    } catch (ConditionTimeoutException e) {
      return probe.get();
    }
  }
}
