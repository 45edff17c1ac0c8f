package dev.rota.cluster.runner;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigValueFactory;
import dev.rota.cluster.agent.AgentChangeListener;
import dev.rota.cluster.runner.executor.HttpExecutor;
import dev.rota.core.model.FailureAction;
import dev.rota.core.tenant.AgentKeys;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.LogCapturingExtension;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Webhook targets bound to tenants (decision 114), against real local webhook servers: a tenant's
 * hook is called only for that tenant's agents, with that tenant's header secret and a {@code
 * Rota-Tenant} header; another tenant's agent aimed at it is discarded without a call, even when a
 * shared entry would cover the address.
 */
@ExtendWith(LogCapturingExtension.class)
class WebhookTenantsTest {
  private static final ActorTestKit KIT =
      TestCluster.start("WebhookTenantsTest", "", AgentChangeListener.NONE);
  private static final ObjectMapper JSON = new ObjectMapper();

  /** A call as a server saw it. */
  record Call(String server, String tenant, String agentId, String auth) {}

  private static final LinkedBlockingQueue<Call> CALLS = new LinkedBlockingQueue<>();
  private static HttpServer acme;
  private static HttpServer globex;
  private static HttpServer shared;
  private static HttpExecutor executor;

  @BeforeAll
  static void start() throws IOException {
    acme = server("acme");
    globex = server("globex");
    shared = server("shared");
    var settings =
        Map.of(
            "timeout",
            "10s",
            // Covers every port of 127.0.0.1: the tenants' own hooks too.
            "allowed-targets",
            List.of("127.0.0.1"),
            "headers",
            Map.of("Authorization", "Bearer shared-secret"),
            "tenant-targets",
            Map.of(
                "acme",
                Map.of(
                    "allowed-targets",
                    List.of(url(acme, "/")),
                    "headers",
                    Map.of("Authorization", "Bearer acme-secret")),
                "globex",
                Map.of(
                    "allowed-targets",
                    List.of(url(globex, "/")),
                    "headers",
                    Map.of("Authorization", "Bearer globex-secret"))));
    var pool = Map.of("name", "hooks", "executor", "http", "executor-settings", settings);
    var runners =
        RunnerSettings.from(
            ConfigFactory.empty()
                .withValue("rota.runners.pools", ConfigValueFactory.fromIterable(List.of(pool)))
                .withFallback(KIT.system().settings().config()));
    executor =
        new HttpExecutor(
            new ExecutorContext(
                KIT.system(),
                "hooks",
                runners.pools().get(0).executorSettings(),
                KIT.system().executionContext()));
  }

  @AfterAll
  static void shutdown() {
    for (HttpServer server : List.of(acme, globex, shared)) {
      server.stop(0);
      ((ExecutorService) server.getExecutor()).shutdownNow();
    }
    KIT.shutdownTestKit();
  }

  @BeforeEach
  void forgetCalls() {
    CALLS.clear();
  }

  private static HttpServer server(String name) throws IOException {
    HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.setExecutor(Executors.newCachedThreadPool());
    server.createContext(
        "/",
        exchange -> {
          exchange.getRequestBody().readAllBytes();
          var headers = exchange.getRequestHeaders();
          CALLS.add(
              new Call(
                  name,
                  headers.getFirst("Rota-Tenant"),
                  headers.getFirst("Rota-Agent-Id"),
                  headers.getFirst("Authorization")));
          byte[] bytes = ("{\"by\": \"" + name + "\"}").getBytes(StandardCharsets.UTF_8);
          exchange.sendResponseHeaders(200, bytes.length);
          exchange.getResponseBody().write(bytes);
          exchange.close();
        });
    server.start();
    return server;
  }

  private static String url(HttpServer server, String path) {
    return "http://127.0.0.1:" + server.getAddress().getPort() + path;
  }

  private static Outcome run(String tenant, String agentId, String url) throws Exception {
    JsonNode metadata = JSON.createObjectNode().put("webhookUrl", url);
    return executor
        .execute(TestCluster.activation(AgentKeys.key(tenant, agentId), metadata))
        .toCompletableFuture()
        .get(30, TimeUnit.SECONDS);
  }

  @Test
  void aTenantsHookIsCalledWithItsSecretAndTheTenantNamed() throws Exception {
    assertInstanceOf(Outcome.Completed.class, run("acme", "bot", url(acme, "/hook")));

    Call call = CALLS.poll(5, TimeUnit.SECONDS);
    assertEquals(new Call("acme", "acme", "bot", "Bearer acme-secret"), call);
  }

  @Test
  void anotherTenantsAgentAimedAtAHookBoundToATenantIsNeverCalled() throws Exception {
    for (String tenant : List.of("acme", "default")) {
      Outcome outcome = run(tenant, "intruder", url(globex, "/hook"));

      var failed = assertInstanceOf(Outcome.Failed.class, outcome, tenant);
      assertEquals(FailureAction.DISCARD, failed.action());
      assertTrue(failed.error().contains("not an allowed webhook target"), failed.error());
    }
    assertNull(CALLS.poll(1, TimeUnit.SECONDS), "globex's hook may not be called");
  }

  @Test
  void aTenantsHeaderSecretIsRedactedFromWhatExecutorsHandBack() {
    var redactor =
        Redactor.from(
            ConfigFactory.parseString(
                "rota.runners.http.tenant-targets.acme.headers.Authorization = \"Bearer acme-s3cret\""));

    assertEquals("echo: [redacted]", redactor.redact("echo: Bearer acme-s3cret"));
  }

  @Test
  void aSharedTargetGetsTheSharedSecretAndTheCallersTenant() throws Exception {
    assertInstanceOf(Outcome.Completed.class, run("acme", "bot", url(shared, "/hook")));

    Call call = CALLS.poll(5, TimeUnit.SECONDS);
    assertEquals(new Call("shared", "acme", "bot", "Bearer shared-secret"), call);
  }
}
