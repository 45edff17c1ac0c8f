package dev.rota.cluster.runner;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigValueFactory;
import dev.rota.cluster.agent.AgentChangeListener;
import dev.rota.cluster.assign.ActivationJson;
import dev.rota.cluster.runner.TestCluster.Run;
import dev.rota.core.model.FailureAction;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.LogCapturingExtension;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The http executor against a real local webhook server, run by a runner against real agents. */
@ExtendWith(LogCapturingExtension.class)
class HttpExecutorTest {
  private static final ActorTestKit KIT =
      TestCluster.start("HttpExecutorTest", "", AgentChangeListener.NONE);
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration WAIT = Duration.ofSeconds(10);

  /** A webhook call as the server saw it. */
  record Received(
      String path, String body, String leaseIdHeader, String contentType, String auth) {}

  private static final LinkedBlockingQueue<Received> RECEIVED = new LinkedBlockingQueue<>();
  private static HttpServer server;
  private static Executor http;

  @BeforeAll
  static void startWebhooks() throws IOException {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.setExecutor(java.util.concurrent.Executors.newCachedThreadPool());
    webhook("/ok", 200, "{\"reply\": \"done\"}");
    webhook("/empty", 204, "");
    webhook("/busy", 503, "overloaded");
    webhook("/gone", 404, "no such agent");
    webhook("/later", 409, "{\"action\": \"snooze\", \"snoozeSeconds\": 30, \"error\": \"busy\"}");
    server.createContext(
        "/slow",
        exchange -> {
          try {
            Thread.sleep(3000); // a webhook slower than the executor's timeout
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
          respond(exchange, 200, "{}");
        });
    server.start();
    var pool =
        Map.of(
            "name",
            "hooks",
            "executor",
            "http",
            "executor-settings",
            Map.of(
                "timeout",
                "1s",
                "headers",
                Map.of("Authorization", "Bearer test"),
                "allowed-targets",
                List.of("127.0.0.1")));
    var settings =
        RunnerSettings.from(
            ConfigFactory.empty()
                .withValue("rota.runners.pools", ConfigValueFactory.fromIterable(List.of(pool)))
                .withFallback(KIT.system().settings().config()));
    http = ExecutorFactory.standard(KIT.system(), settings).create(settings.pools().get(0));
  }

  @AfterAll
  static void shutdown() {
    server.stop(0);
    ((java.util.concurrent.ExecutorService) server.getExecutor()).shutdownNow();
    KIT.shutdownTestKit();
  }

  private static void webhook(String path, int status, String body) {
    server.createContext(
        path,
        exchange -> {
          String received =
              new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
          RECEIVED.add(
              new Received(
                  path,
                  received,
                  exchange.getRequestHeaders().getFirst("Rota-Lease-Id"),
                  exchange.getRequestHeaders().getFirst("Content-Type"),
                  exchange.getRequestHeaders().getFirst("Authorization")));
          respond(exchange, status, body);
        });
  }

  private static void respond(HttpExchange exchange, int status, String body) throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    exchange.sendResponseHeaders(status, bytes.length == 0 ? -1 : bytes.length);
    if (bytes.length > 0) {
      exchange.getResponseBody().write(bytes);
    }
    exchange.close();
  }

  private static JsonNode hook(String path) {
    return JSON.createObjectNode()
        .put("webhookUrl", "http://127.0.0.1:" + server.getAddress().getPort() + path);
  }

  private static Received received() throws InterruptedException {
    Received r = RECEIVED.poll(WAIT.toSeconds(), TimeUnit.SECONDS);
    if (r == null) {
      throw new AssertionError("the webhook was not called");
    }
    return r;
  }

  @Test
  void postsTheAssignmentToTheWebhookAndCompletesWithItsResponse() throws Exception {
    Run run = TestCluster.runOnce(KIT, "http-ok", hook("/ok"), http);

    Received received = received();
    assertEquals(
        ActivationJson.assignment(run.activation().granted()), JSON.readTree(received.body()));
    assertEquals("http-ok", JSON.readTree(received.body()).get("agentId").asText());
    assertEquals(run.activation().leaseId(), received.leaseIdHeader());
    assertEquals("application/json", received.contentType());
    assertEquals("Bearer test", received.auth(), "configured headers are sent");
    assertEquals(new Outcome.Completed(JSON.readTree("{\"reply\": \"done\"}")), run.outcome());
    assertEquals(1, run.agent().activationCount());
    assertTrue(run.agent().inbox().isEmpty());
  }

  @Test
  void serviceUnavailableFailsWithRetry() throws Exception {
    Run run = TestCluster.runOnce(KIT, "http-busy", hook("/busy"), http);

    assertEquals("/busy", received().path());
    assertEquals(Outcome.retry("webhook 127.0.0.1 answered 503: overloaded"), run.outcome());
    assertEquals(1, run.agent().inbox().get(0).attempts());
  }

  @Test
  void notFoundFailsWithDiscard() throws Exception {
    Run run = TestCluster.runOnce(KIT, "http-gone", hook("/gone"), http);

    assertEquals("/gone", received().path());
    var failed = assertInstanceOf(Outcome.Failed.class, run.outcome());
    assertEquals(FailureAction.DISCARD, failed.action());
    assertTrue(run.agent().inbox().isEmpty());
    assertEquals(1, run.agent().deadLetters().size());
  }

  @Test
  void agentWithoutAWebhookUrlIsDiscarded() throws Exception {
    Run run = TestCluster.runOnce(KIT, "http-none", null, http);

    assertEquals(Outcome.discard("agent has no metadata.webhookUrl"), run.outcome());
    assertEquals(1, run.agent().deadLetters().size());
  }

  @Test
  void failingResponseNamingAnActionGetsThatAction() throws Exception {
    Run run = TestCluster.runOnce(KIT, "http-later", hook("/later"), http);

    assertEquals("/later", received().path());
    assertEquals(new Outcome.Failed(FailureAction.SNOOZE, "busy", 30), run.outcome());
    assertEquals(0, run.agent().inbox().get(0).attempts());
  }

  @Test
  void emptySuccessfulResponseCompletesWithAnEmptyObject() throws Exception {
    Outcome outcome =
        http.execute(TestCluster.activation("http-empty", hook("/empty")))
            .toCompletableFuture()
            .get(10, TimeUnit.SECONDS);

    assertEquals("/empty", received().path());
    assertEquals(new Outcome.Completed(JSON.createObjectNode()), outcome);
  }

  @Test
  void webhookSlowerThanTheTimeoutIsRetried() throws Exception {
    Outcome outcome =
        http.execute(TestCluster.activation("http-slow", hook("/slow")))
            .toCompletableFuture()
            .get(10, TimeUnit.SECONDS);

    assertEquals(Outcome.retry("webhook 127.0.0.1 timed out after 1s"), outcome);
  }

  @Test
  void unreachableWebhookIsRetried() throws Exception {
    int closedPort;
    try (ServerSocket socket = new ServerSocket(0)) {
      closedPort = socket.getLocalPort();
    }
    var metadata = JSON.createObjectNode().put("webhookUrl", "http://127.0.0.1:" + closedPort);

    Outcome outcome =
        http.execute(TestCluster.activation("http-down", metadata))
            .toCompletableFuture()
            .get(10, TimeUnit.SECONDS);

    var failed = assertInstanceOf(Outcome.Failed.class, outcome);
    assertEquals(FailureAction.RETRY, failed.action());
    assertTrue(failed.error().startsWith("cannot connect to webhook 127.0.0.1"), failed.error());
  }
}
