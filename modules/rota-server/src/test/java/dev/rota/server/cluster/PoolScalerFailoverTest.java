package dev.rota.server.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.rota.server.RotaConfig;
import dev.rota.server.RotaNode;
import dev.rota.server.testing.ClusterNodes;
import dev.rota.server.testing.Databases;
import dev.rota.server.testing.TestDatabase;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.StreamSupport;
import org.apache.pekko.actor.Address;
import org.apache.pekko.actor.testkit.typed.javadsl.LogCapturingExtension;
import org.apache.pekko.cluster.Member;
import org.apache.pekko.cluster.MemberStatus;
import org.apache.pekko.cluster.typed.Cluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The pool scaler on three real nodes on one PostgreSQL, each running an in-cluster notification
 * pool and exploration pool of up to 3 runners (noop executor: 400 ms and 200 ms per activation),
 * the scaler counting every 500 ms with a 3 s scale-down delay. A burst of notifications raises the
 * notification pool to its max (9, three per node) and it shrinks back to 1 once the backlog
 * drained; the exploration pool follows the runners its target staleness needs as agents are added;
 * and after the node running the scaler singleton is stopped, the scaler on another node keeps
 * scaling. {@code /metrics} shows the numbers.
 */
@ExtendWith(LogCapturingExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PoolScalerFailoverTest {
  private static final Duration TIMEOUT = Duration.ofSeconds(60);
  private static final ObjectMapper JSON = new ObjectMapper();

  private final HttpClient http = HttpClient.newBuilder().connectTimeout(TIMEOUT).build();
  private final List<RotaNode> nodes = new ArrayList<>();
  private TestDatabase database;

  @BeforeAll
  void startCluster() throws Exception {
    database = Databases.postgres();
    int[] ports = {freePort(), freePort(), freePort()};
    for (int port : ports) {
      nodes.add(RotaNode.startWith(nodeConfig(port, ports[0])));
    }
    await("three members up", () -> nodes.stream().allMatch(n -> membersUp(n) == 3));
  }

  @AfterAll
  void stopCluster() {
    for (int i = nodes.size() - 1; i >= 0; i--) {
      nodes.get(i).stop();
    }
    database.close();
  }

  private Config nodeConfig(int clusterPort, int seedPort) {
    Config overrides =
        ConfigFactory.parseString(
            String.join(
                "\n",
                "rota.http.port = 0",
                "rota.management.port = 0",
                "rota.cluster.port = " + clusterPort,
                "rota.cluster.seed-nodes = \"127.0.0.1:" + seedPort + "\"",
                "rota.db.max-pool-size = 4",
                "rota.metrics.sample-interval = 500ms",
                "rota.runners.enabled = true",
                "rota.runners.poll-wait = 1s",
                "rota.runners.pools = [",
                "  { name = notify, count = 1, min = 0, max = 3, mode = notification,",
                "    capabilities = [burst], executor = noop, executor-settings { delay = 400ms } }",
                "  { name = explore, count = 1, min = 0, max = 3, mode = exploration,",
                "    capabilities = [stale], executor = noop, executor-settings { delay = 200ms } }",
                "]",
                "rota.pools.interval = 500ms",
                "rota.pools.scale-down-delay = 3s",
                "rota.pools.pools = [",
                "  { name = notify, mode = notification, capabilities = [burst], min = 1, max = 9,",
                "    target-inbox-wait = 1s }",
                "  { name = explore, mode = exploration, capabilities = [stale], min = 1, max = 9,",
                "    target-staleness = 2s }",
                "]"));
    return RotaConfig.load(overrides.withFallback(database.config()), Map.of());
  }

  @Test
  void scalesOnBurstsAndStalenessAndKeepsScalingAfterTheSingletonsNodeStops() throws Exception {
    RotaNode first = nodes.get(0);
    await("the scaler's first round", () -> pools(first) != null);

    // Exploration follows N·T/S: 10 agents due every 2 s, then 50.
    registerAll(
        first,
        "stale",
        0,
        10,
        "{\"capabilities\":[\"stale\"]," + "\"minActivationIntervalSeconds\":2}");
    await(
        "exploration measured",
        () ->
            pool(first, "explore").at("/backlog/agents").asLong() == 10
                && pool(first, "explore").at("/capacity/meanActivationSeconds").asDouble() > 0);
    int fewAgents = pool(first, "explore").get("desired").asInt();
    registerAll(
        first,
        "stale",
        10,
        50,
        "{\"capabilities\":[\"stale\"]," + "\"minActivationIntervalSeconds\":2}");
    // 50 agents x T (at least 0.2 s) / 2 s: at least 5 runners.
    await(
        "the exploration pool grows with its agents",
        () -> pool(first, "explore").get("desired").asInt() >= 5);
    assertTrue(
        pool(first, "explore").get("desired").asInt() > fewAgents,
        "with 10 agents: " + fewAgents + ", with 50: " + pool(first, "explore"));
    await("the in-cluster exploration pools follow", () -> inClusterSum("explore") >= 5);

    // A burst: 60 agents with a notification each; 60 x T (at least 0.2 s) / 1 s is 12 runners'
    // worth or more.
    registerAll(first, "burst", 0, 60, "{\"capabilities\":[\"burst\"]}");
    notifyAll(first, "burst", 60);
    await("the notification pool at its max", () -> desired(first, "notify") == 9);
    await("three notification runners on every node", () -> inClusterSum("notify") == 9);
    await("the metric says 9", () -> metric(first, "notify") == 9.0);
    await("the burst drained and the pool shrunk", () -> desired(first, "notify") == 1);
    await("the in-cluster pools shrunk", () -> inClusterSum("notify") == 1);

    // Stop the node the singleton runs on (the oldest); the scaler moves to another node.
    RotaNode oldest = oldest();
    nodes.remove(oldest);
    Address gone = oldest.clusterAddress();
    oldest.stop();
    RotaNode survivor = nodes.get(0);
    await("two members up", () -> membersUp(survivor) == 2);
    await("the scaler answers again", () -> pools(survivor) != null);

    notifyAll(survivor, "burst", 60);
    await("the notification pool at its max again", () -> desired(survivor, "notify") == 9);
    // Two nodes of at most 3 runners each: the in-cluster pools hold 6, the metric asks for 9.
    await("the surviving nodes' pools at their max", () -> inClusterSum("notify") == 6);
    for (RotaNode node : nodes) {
      await("the metric on " + node.clusterAddress(), () -> metric(node, "notify") == 9.0);
    }
    await("the second burst drained", () -> desired(survivor, "notify") == 1);
    assertTrue(
        nodes.stream().noneMatch(n -> n.clusterAddress().equals(gone)), "the stopped node left");
  }

  // ---- helpers ----

  private void registerAll(RotaNode node, String prefix, int from, int to, String body)
      throws Exception {
    for (int i = from; i < to; i++) {
      assertEquals(201, send(node, "PUT", "/v1/agents/" + prefix + "-" + i, body).statusCode());
    }
  }

  private void notifyAll(RotaNode node, String prefix, int count) throws Exception {
    for (int i = 0; i < count; i++) {
      assertEquals(
          202,
          send(
                  node,
                  "POST",
                  "/v1/agents/" + prefix + "-" + i + "/notifications",
                  "{\"type\":\"burst\"}")
              .statusCode());
    }
  }

  /** /admin/pools of a node; null while it answers 503 (no scaler round yet, or a failover). */
  private JsonNode pools(RotaNode node) {
    try {
      HttpResponse<String> response = send(node, "GET", "/admin/pools", null);
      return response.statusCode() == 200 ? JSON.readTree(response.body()) : null;
    } catch (Exception e) {
      return null;
    }
  }

  private JsonNode pool(RotaNode node, String name) {
    JsonNode pools = pools(node);
    if (pools != null) {
      for (JsonNode pool : pools.get("pools")) {
        if (pool.get("name").asText().equals(name)) {
          return pool;
        }
      }
    }
    return JSON.createObjectNode();
  }

  private int desired(RotaNode node, String pool) {
    return pool(node, pool).path("desired").asInt(-1);
  }

  /** The sizes the nodes' in-cluster pools of that name are held at, summed (from /admin/pools). */
  private int inClusterSum(String pool) {
    return pool(nodes.get(0), pool).path("inCluster").asInt(-1);
  }

  /** rota_pool_desired_runners{pool} in a node's /metrics; -1 when absent. */
  private double metric(RotaNode node, String pool) {
    try {
      String text = send(node, "GET", "/metrics", null).body();
      Matcher m =
          Pattern.compile("(?m)^rota_pool_desired_runners\\{pool=\"" + pool + "\"[^}]*\\} (\\S+)$")
              .matcher(text);
      return m.find() ? Double.parseDouble(m.group(1)) : -1;
    } catch (Exception e) {
      return -1;
    }
  }

  private RotaNode oldest() {
    Member oldest =
        StreamSupport.stream(
                Cluster.get(nodes.get(0).system()).state().getMembers().spliterator(), false)
            .filter(m -> m.status() == MemberStatus.up())
            .min((a, b) -> a.isOlderThan(b) ? -1 : b.isOlderThan(a) ? 1 : 0)
            .orElseThrow();
    return nodes.stream()
        .filter(n -> n.clusterAddress().equals(oldest.address()))
        .findFirst()
        .orElseThrow();
  }

  private static long membersUp(RotaNode node) {
    return ClusterNodes.membersUp(node);
  }

  private HttpResponse<String> send(RotaNode node, String method, String path, String body)
      throws Exception {
    return ClusterNodes.send(http, node, method, path, body, TIMEOUT);
  }

  private static void await(String what, java.util.function.BooleanSupplier condition)
      throws InterruptedException {
    ClusterNodes.await(what, TIMEOUT, condition);
  }

  private static int freePort() throws Exception {
    return ClusterNodes.freePort();
  }
}
