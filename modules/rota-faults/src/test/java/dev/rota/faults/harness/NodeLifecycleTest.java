package dev.rota.faults.harness;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * One node from the runnable jar on the embedded PostgreSQL, watched from outside: {@code /ready}
 * is never 200 before the API answers, and SIGTERM answers an open long poll with {@code
 * {"status":"none"}} before the node exits with status 0.
 */
class NodeLifecycleTest {
  private final RotaApi api = new RotaApi();

  @Test
  void readyOnlyWhenTheApiAnswersAndSigtermAnswersOpenLongPolls() throws Exception {
    Path out = Path.of(System.getProperty("rota.faults.out", "target/faults")).resolve("lifecycle");
    Path jar =
        Path.of(System.getProperty("rota.faults.jar", "../rota-server/target/rota-server.jar"));
    Path config =
        Path.of(System.getProperty("rota.faults.config", "../../config/cluster-node.conf"));
    try (FaultPostgres db = FaultPostgres.start(out.resolve("postgres"))) {
      int http = FaultCluster.freePort();
      int management = FaultCluster.freePort();
      int cluster = FaultCluster.freePort();
      NodeProcess node =
          new NodeProcess(
              1,
              http,
              management,
              cluster,
              jar.toAbsolutePath(),
              config.toAbsolutePath(),
              out.resolve("node"),
              Map.of(
                  "ROTA_CLUSTER_HOST", "127.0.0.1",
                  "ROTA_CLUSTER_PORT", Integer.toString(cluster),
                  "ROTA_HTTP_PORT", Integer.toString(http),
                  "ROTA_MANAGEMENT_PORT", Integer.toString(management),
                  "ROTA_DB_URL", db.jdbcUrl(),
                  "ROTA_DB_USER", "postgres"));
      node.start();
      try {
        List<String> observations = watchStart(node);
        assertTrue(
            observations.stream().noneMatch(o -> o.startsWith("VIOLATION")),
            String.join("\n", observations));

        send(http, "PUT", "/v1/agents/lp", "{}");
        CompletableFuture<RotaApi.Response> longPoll =
            CompletableFuture.supplyAsync(
                () -> {
                  try {
                    return api.send(
                        http,
                        "POST",
                        "/v1/claims",
                        "{\"runnerId\":\"r1\",\"mode\":\"notification\",\"waitSeconds\":30}",
                        Duration.ofSeconds(40));
                  } catch (IOException e) {
                    throw new IllegalStateException("the long poll got no answer: " + e, e);
                  }
                });
        // The claim is parked by now; the node in its own process shows no signal of it to await.
        Thread.sleep(1500);
        long sent = System.nanoTime();
        node.terminate();
        RotaApi.Response answer = longPoll.get(20, TimeUnit.SECONDS);
        assertEquals(200, answer.status());
        assertEquals("none", answer.body().path("status").asText());
        assertTrue(
            System.nanoTime() - sent < Duration.ofSeconds(20).toNanos(),
            "the long poll was answered by the shutdown, not by its 30 s wait");
        OptionalInt status = node.awaitExit(Duration.ofSeconds(60));
        assertTrue(status.isPresent(), "the node did not exit within 60 s of SIGTERM");
        assertFalse(status.getAsInt() != 0 && status.getAsInt() != 143, "exit status " + status);
      } finally {
        node.destroy();
      }
    }
  }

  /**
   * Polls {@code /ready} and then the API, every few milliseconds, until {@code /ready} has been
   * 200 for a second; an observation where {@code /ready} is 200 but the API does not answer (no
   * connection, or a 503) is a violation.
   */
  private List<String> watchStart(NodeProcess node) throws InterruptedException {
    List<String> observations = new ArrayList<>();
    long deadline = System.nanoTime() + Duration.ofSeconds(180).toNanos();
    long readySince = 0;
    String last = "";
    while (System.nanoTime() < deadline) {
      assertTrue(node.alive(), "the node exited while starting");
      int ready = status(node.managementPort(), "/ready");
      int answer = status(node.httpPort(), "/v1/agents/probe");
      String now = "ready " + ready + ", api " + answer;
      if (ready == 200 && answer != 200 && answer != 404) {
        observations.add("VIOLATION: " + now);
      }
      if (!now.equals(last)) {
        observations.add(now);
        last = now;
      }
      if (ready == 200) {
        readySince = readySince == 0 ? System.nanoTime() : readySince;
        if (System.nanoTime() - readySince > Duration.ofSeconds(1).toNanos()) {
          System.out.println("[lifecycle] start observed: " + observations);
          return observations;
        }
      }
      Thread.sleep(10); // samples every 10 ms: the record of each state the start passes through
    }
    observations.add("VIOLATION: not ready within 180 s");
    return observations;
  }

  private int status(int port, String path) {
    try {
      return api.send(port, "GET", path, null, Duration.ofSeconds(5)).status();
    } catch (IOException e) {
      return 0;
    }
  }

  private void send(int port, String method, String path, String body) throws IOException {
    RotaApi.Response response = api.send(port, method, path, body, Duration.ofSeconds(10));
    assertTrue(response.ok(), method + " " + path + ": " + response.status());
  }
}
