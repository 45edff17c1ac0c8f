package dev.rota.cluster.runner;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigValueFactory;
import dev.rota.cluster.agent.AgentChangeListener;
import dev.rota.cluster.runner.executor.HttpExecutor;
import dev.rota.cluster.runner.executor.WebhookTargets;
import dev.rota.core.model.FailureAction;
import java.io.IOException;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
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
 * The http executor's egress policy (decision 50) against real local webhook servers: only allowed
 * targets are called, configured headers go nowhere else, inward addresses need naming, the address
 * checked is the one connected to, and a huge reply is neither read whole nor recorded.
 */
@ExtendWith(LogCapturingExtension.class)
class WebhookEgressTest {
  private static final ActorTestKit KIT =
      TestCluster.start("WebhookEgressTest", "", AgentChangeListener.NONE);
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int TEN_MIB = 10 * 1024 * 1024;

  /** A call as a server saw it. */
  record Call(String server, String uri, String host, String auth) {}

  private static final LinkedBlockingQueue<Call> CALLS = new LinkedBlockingQueue<>();
  private static HttpServer allowed;
  private static HttpServer other;

  @BeforeAll
  static void startServers() throws IOException {
    allowed = server("allowed");
    other = server("other");
  }

  @AfterAll
  static void shutdown() {
    for (HttpServer server : List.of(allowed, other)) {
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
          CALLS.add(
              new Call(
                  name,
                  exchange.getRequestURI().toString(),
                  exchange.getRequestHeaders().getFirst("Host"),
                  exchange.getRequestHeaders().getFirst("Authorization")));
          String path = exchange.getRequestURI().getPath();
          if (path.startsWith("/huge")) {
            huge(exchange, path.endsWith("ok") ? 200 : 500);
          } else if (path.startsWith("/leaky")) {
            respond(exchange, 500, "secret\u0000\u001b[31m\r\nline " + "x".repeat(5000));
          } else {
            respond(exchange, 200, "{\"reply\": \"done\"}");
          }
        });
    server.start();
    return server;
  }

  private static void respond(HttpExchange exchange, int status, String body) throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    exchange.sendResponseHeaders(status, bytes.length);
    exchange.getResponseBody().write(bytes);
    exchange.close();
  }

  /** 10 MiB of text, written in 64 KiB pieces; the client may hang up at any point. */
  private static void huge(HttpExchange exchange, int status) throws IOException {
    exchange.sendResponseHeaders(status, TEN_MIB);
    byte[] piece = new byte[65536];
    Arrays.fill(piece, (byte) 'a');
    try (OutputStream out = exchange.getResponseBody()) {
      for (int written = 0; written < TEN_MIB; written += piece.length) {
        out.write(piece);
      }
    } catch (IOException hungUp) {
      // the client stopped reading: what this test wants
    }
  }

  private static String url(HttpServer server, String path) {
    return "http://127.0.0.1:" + server.getAddress().getPort() + path;
  }

  private static HttpExecutor executor(List<String> targets, WebhookTargets.Resolver resolver) {
    var pool =
        Map.of(
            "name",
            "hooks",
            "executor",
            "http",
            "executor-settings",
            Map.of(
                "timeout",
                "10s",
                "headers",
                Map.of("Authorization", "Bearer secret"),
                "allowed-targets",
                targets));
    var settings =
        RunnerSettings.from(
            ConfigFactory.empty()
                .withValue("rota.runners.pools", ConfigValueFactory.fromIterable(List.of(pool)))
                .withFallback(KIT.system().settings().config()));
    var context =
        new ExecutorContext(
            KIT.system(),
            "hooks",
            settings.pools().get(0).executorSettings(),
            KIT.system().executionContext());
    return new HttpExecutor(context, resolver);
  }

  private static HttpExecutor executor(List<String> targets) {
    return executor(targets, InetAddress::getAllByName);
  }

  private static Outcome run(Executor executor, String url) throws Exception {
    JsonNode metadata = JSON.createObjectNode().put("webhookUrl", url);
    return executor
        .execute(TestCluster.activation("egress", metadata))
        .toCompletableFuture()
        .get(30, TimeUnit.SECONDS);
  }

  /** Waits a little for calls that should not come, so a late one is still seen. */
  private static void assertNoCall() throws InterruptedException {
    Call call = CALLS.poll(1, TimeUnit.SECONDS);
    assertEquals(null, call, "no webhook may be called");
  }

  @Test
  void poolWithTheHttpExecutorRefusesToStartWithoutAllowedTargets() {
    var error = assertThrows(IllegalArgumentException.class, () -> executor(List.of()));
    assertTrue(
        error.getMessage().contains("rota.runners.http.allowed-targets"), error.getMessage());
  }

  @Test
  void webhookOutsideTheListIsNeverCalledAndGetsNoHeaders() throws Exception {
    var executor = executor(List.of(url(allowed, "/")));

    Outcome outcome = run(executor, url(other, "/hook"));

    var failed = assertInstanceOf(Outcome.Failed.class, outcome);
    assertEquals(FailureAction.DISCARD, failed.action());
    assertTrue(failed.error().contains("not an allowed webhook target"), failed.error());
    assertNoCall();

    assertInstanceOf(Outcome.Completed.class, run(executor, url(allowed, "/hook")));
    Call call = CALLS.poll(5, TimeUnit.SECONDS);
    assertEquals("allowed", call.server());
    assertEquals("Bearer secret", call.auth(), "configured headers go to the allowed target");
  }

  @Test
  void listedNameResolvingToAnUnlistedInwardAddressIsNotCalled() throws Exception {
    var executor =
        executor(
            List.of("hooks.example.test"),
            host -> new InetAddress[] {InetAddress.getByName("127.0.0.1")});

    Outcome outcome =
        run(executor, "http://hooks.example.test:" + allowed.getAddress().getPort() + "/hook");

    var failed = assertInstanceOf(Outcome.Failed.class, outcome);
    assertEquals(FailureAction.DISCARD, failed.action());
    assertTrue(failed.error().contains("inward address"), failed.error());
    assertFalse(failed.error().contains("127.0.0.1"), "the address stays in the node's log");
    assertNoCall();
  }

  @Test
  void cloudMetadataAddressIsRefusedUnlessNamed() throws Exception {
    var executor = executor(List.of("*.example.test"));

    Outcome outcome = run(executor, "http://169.254.169.254/latest/meta-data/");

    assertEquals(FailureAction.DISCARD, assertInstanceOf(Outcome.Failed.class, outcome).action());
    assertNoCall();
  }

  @Test
  void callConnectsToTheAddressThatWasChecked() throws Exception {
    // The name exists only in this resolver: the call can only arrive if the client connects to
    // the checked address instead of resolving the name again.
    int[] lookups = {0};
    var executor =
        executor(
            List.of("hooks.example.test", "127.0.0.1"),
            host -> {
              lookups[0]++;
              if (!host.equals("hooks.example.test")) {
                throw new UnknownHostException(host);
              }
              return new InetAddress[] {InetAddress.getByName("127.0.0.1")};
            });
    String url = "http://hooks.example.test:" + allowed.getAddress().getPort() + "/pinned";

    assertInstanceOf(Outcome.Completed.class, run(executor, url));

    Call call = CALLS.poll(5, TimeUnit.SECONDS);
    assertEquals("hooks.example.test:" + allowed.getAddress().getPort(), call.host());
    assertTrue(call.uri().endsWith("/pinned"), call.uri());
    assertEquals(1, lookups[0], "resolved once");
  }

  @Test
  void failingReplyIsRecordedAsAShortCleanExcerpt() throws Exception {
    var executor = executor(List.of("127.0.0.1"));

    var failed = assertInstanceOf(Outcome.Failed.class, run(executor, url(allowed, "/leaky")));

    assertTrue(failed.error().startsWith("webhook 127.0.0.1 answered 500: secret"), failed.error());
    assertTrue(failed.error().length() < 260, "length " + failed.error().length());
    assertTrue(failed.error().codePoints().noneMatch(Character::isISOControl), failed.error());
  }

  @Test
  void tenMibReplyIsCutAtTheCapWithoutRaisingHeapUse() throws Exception {
    var executor = executor(List.of("127.0.0.1"));
    run(executor, url(allowed, "/warm-up"));
    CALLS.clear();

    long before = allocatedBytes();
    var failed = assertInstanceOf(Outcome.Failed.class, run(executor, url(allowed, "/huge")));
    var completed =
        assertInstanceOf(Outcome.Completed.class, run(executor, url(allowed, "/huge-ok")));
    long allocated = allocatedBytes() - before;

    // Reading both replies whole would allocate at least 2 x 10 MiB (bytes, then text); the cap
    // leaves room for the rest of the JVM's allocations meanwhile.
    assertTrue(allocated < 8L * 1024 * 1024, "allocated " + allocated / 1024 + " KiB");
    assertEquals(2, CALLS.size());
    assertTrue(failed.error().contains("reply cut at its first 65536 bytes"), failed.error());
    assertTrue(failed.error().length() < 300, "length " + failed.error().length());
    assertTrue(completed.result().get("truncated").asBoolean(), completed.result().toString());
    assertTrue(completed.result().get("body").asText().length() <= 201);
  }

  /** Bytes allocated so far by every live thread (HotSpot's per-thread counters). */
  private static long allocatedBytes() {
    var threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    long total = 0;
    for (long bytes : threads.getThreadAllocatedBytes(threads.getAllThreadIds())) {
      total += Math.max(0, bytes);
    }
    return total;
  }
}
