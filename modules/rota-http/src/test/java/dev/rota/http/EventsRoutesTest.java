package dev.rota.http;

import static dev.rota.http.testing.ApiCalls.withToken;
import static dev.rota.http.testing.RouteAssertions.assertError;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.typesafe.config.ConfigFactory;
import dev.rota.http.testing.ApiCalls;
import dev.rota.http.testing.JUnit5RouteTest;
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
import java.util.stream.Stream;
import org.apache.pekko.actor.testkit.typed.javadsl.LogCapturingExtension;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.http.javadsl.Http;
import org.apache.pekko.http.javadsl.ServerBinding;
import org.apache.pekko.http.javadsl.model.HttpRequest;
import org.apache.pekko.http.javadsl.testkit.TestRouteResult;
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
      api.post("/v1/leases/" + leaseId + "/complete", "{}").assertStatusCode(200);
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
        new EventsRoutes(cluster.system(), null, 4, Runnable::run, new ApiAuth(settings));

    TestRouteResult result =
        testRoute(new ApiErrors(settings).handle(() -> withoutReadModel.route()))
            .run(HttpRequest.GET("/v1/events"));

    assertError(result, 503, "unavailable", "journal");
    result.assertHeaderExists("Retry-After", "5");
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
      List<String> lines, Predicate<JsonNode> matching, int count) throws InterruptedException {
    long deadline = System.nanoTime() + DEADLINE.toNanos();
    while (true) {
      List<JsonNode> found = events(lines).stream().filter(matching).toList();
      if (found.size() >= count || System.nanoTime() > deadline) {
        return found;
      }
      Thread.sleep(50);
    }
  }
}
