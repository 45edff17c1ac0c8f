package dev.rota.server.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.rota.cluster.runner.RunnerPool;
import dev.rota.cluster.runner.RunnerStatus;
import dev.rota.server.RotaConfig;
import dev.rota.server.RotaNode;
import dev.rota.server.testing.ClusterNodes;
import dev.rota.server.testing.Databases;
import dev.rota.server.testing.TestDatabase;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.pekko.actor.testkit.typed.javadsl.LogCapturingExtension;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.AskPattern;
import org.apache.pekko.actor.typed.receptionist.Receptionist;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Three real nodes (three ActorSystems joined over loopback) on one PostgreSQL: agents spread over
 * the nodes, every node's in-cluster runners get work, and an external runner claiming through one
 * node gets an agent that lives on another.
 */
@ExtendWith(LogCapturingExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ThreeNodeClusterTest {
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
    await("three members up", () -> nodes.stream().allMatch(n -> ClusterNodes.membersUp(n) == 3));
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
                "rota.runners.enabled = true",
                "rota.runners.poll-wait = 2s",
                "rota.runners.pools = [{name = default, count = 2, mode = hybrid,"
                    + " capabilities = [spread], executor = noop}]"));
    return RotaConfig.load(overrides.withFallback(database.config()), Map.of());
  }

  @Test
  void spreadsAgentsAndGivesEveryNodesRunnersWork() throws Exception {
    List<String> agents = new ArrayList<>();
    for (int i = 0; i < 30; i++) {
      String id = "spread-" + i;
      agents.add(id);
      assertEquals(
          201,
          send(nodes.get(0), "PUT", "/v1/agents/" + id, "{\"capabilities\":[\"spread\"]}")
              .statusCode());
    }
    for (RotaNode node : nodes) {
      assertTrue(!hostedAgents(node).isEmpty(), "no agents on " + node.clusterAddress());
    }
    AtomicInteger round = new AtomicInteger();
    Awaitility.await("every node's runners completing activations")
        .atMost(TIMEOUT)
        .pollDelay(Duration.ZERO)
        .pollInterval(Duration.ofMillis(500))
        .untilAsserted(
            () -> {
              for (String id : agents) {
                RotaNode via = nodes.get(round.getAndIncrement() % 3);
                assertEquals(
                    202,
                    send(via, "POST", "/v1/agents/" + id + "/notifications", "{\"type\":\"tick\"}")
                        .statusCode());
              }
              Map<String, Long> completedByNode = completedByNode();
              assertTrue(
                  completedByNode.size() == 3 && !completedByNode.containsValue(0L),
                  "runners per node so far: " + completedByNode);
            });
  }

  /**
   * Runner health (decisions 67–69) across nodes: a runner fails three activations, claiming
   * through one node and reporting through another, and its very next claim is refused by every
   * node, whichever hosts the runner health singleton or the agents.
   */
  @Test
  void aRunnerDegradedThroughOneNodeIsRefusedByEveryNodeAtItsNextClaim() throws Exception {
    for (int i = 0; i < 3; i++) {
      assertEquals(
          201,
          send(nodes.get(i), "PUT", "/v1/agents/sick-" + i, "{\"capabilities\":[\"sick\"]}")
              .statusCode());
      assertEquals(
          202,
          send(nodes.get(i), "POST", "/v1/agents/sick-" + i + "/notifications", "{\"type\":\"t\"}")
              .statusCode());
    }
    String claim =
        "{\"runnerId\":\"sick-runner\",\"mode\":\"notification\",\"capabilities\":[\"sick\"],"
            + "\"waitSeconds\":10}";
    for (int i = 0; i < 3; i++) {
      JsonNode answer = JSON.readTree(send(nodes.get(i), "POST", "/v1/claims", claim).body());
      assertEquals("assigned", answer.get("status").asText(), answer.toString());
      String leaseId = answer.get("assignment").get("leaseId").asText();
      assertEquals(
          200,
          send(
                  nodes.get((i + 1) % 3),
                  "POST",
                  "/v1/leases/" + leaseId + "/fail",
                  "{\"runnerId\":\"sick-runner\",\"error\":\"sandbox crashed\"}")
              .statusCode());
    }
    for (RotaNode node : List.of(nodes.get(2), nodes.get(0), nodes.get(1))) {
      JsonNode answer = JSON.readTree(send(node, "POST", "/v1/claims", claim).body());
      assertEquals("none", answer.get("status").asText(), answer.toString());
      assertEquals("degraded", answer.get("reason").asText(), answer.toString());
    }
    // Another runner takes the three retries, through any node.
    String healthy = claim.replace("sick-runner", "well-runner");
    Set<String> retried = new HashSet<>();
    for (int i = 0; i < 3; i++) {
      JsonNode answer = JSON.readTree(send(nodes.get(i), "POST", "/v1/claims", healthy).body());
      assertEquals("assigned", answer.get("status").asText(), answer.toString());
      assertEquals(2, answer.get("assignment").get("attempt").asInt(), answer.toString());
      retried.add(answer.get("assignment").get("agentId").asText());
      assertEquals(
          200,
          send(
                  nodes.get(i),
                  "POST",
                  "/v1/leases/" + answer.get("assignment").get("leaseId").asText() + "/complete",
                  "{\"runnerId\":\"well-runner\"}")
              .statusCode());
    }
    assertEquals(Set.of("sick-0", "sick-1", "sick-2"), retried);
    JsonNode runners = JSON.readTree(send(nodes.get(1), "GET", "/admin/runners", null).body());
    boolean listed = false;
    for (JsonNode r : runners.get("runners")) {
      if (r.get("runnerId").asText().equals("sick-runner")) {
        assertEquals("degraded", r.get("status").asText(), r.toString());
        assertEquals(3, r.at("/stats/failed").asLong(), r.toString());
        listed = true;
      }
    }
    assertTrue(listed, runners.toString());
  }

  @Test
  void claimThroughOneNodeGetsAnAgentLivingOnAnother() throws Exception {
    RotaNode first = nodes.get(0);
    RotaNode third = nodes.get(2);
    String remote = null;
    for (int i = 0; i < 60 && remote == null; i++) {
      String id = "external-" + i;
      assertEquals(
          201, send(first, "PUT", "/v1/agents/" + id, "{\"capabilities\":[\"ext\"]}").statusCode());
      if (hostedAgents(third).contains(id)) {
        remote = id;
      }
    }
    assertTrue(remote != null, "no agent landed on the third node");
    assertEquals(
        202,
        send(first, "POST", "/v1/agents/" + remote + "/notifications", "{\"type\":\"mention\"}")
            .statusCode());

    JsonNode claim =
        JSON.readTree(
            send(
                    first,
                    "POST",
                    "/v1/claims",
                    "{\"runnerId\":\"ext-runner\",\"mode\":\"notification\",\"capabilities\":[\"ext\"],"
                        + "\"waitSeconds\":20}")
                .body());
    assertEquals("assigned", claim.get("status").asText(), claim.toString());
    assertEquals(remote, claim.get("assignment").get("agentId").asText());
    String leaseId = claim.get("assignment").get("leaseId").asText();
    assertEquals(
        200,
        send(
                nodes.get(1),
                "POST",
                "/v1/leases/" + leaseId + "/complete",
                "{\"runnerId\":\"ext-runner\"}")
            .statusCode());
    JsonNode view = JSON.readTree(send(third, "GET", "/v1/agents/" + remote, null).body());
    assertEquals(0, view.get("inbox").get("unread").asInt());
    assertEquals(1, view.get("activationCount").asInt());
  }

  @Test
  void aOneMebibyteInboxIsClaimedThroughAnotherNodeWithoutLoss() throws Exception {
    RotaNode first = nodes.get(0);
    RotaNode third = nodes.get(2);
    String remote = agentHostedOn(third, "big", "big");
    int count = 32;
    String blob = "x".repeat(32 * 1024);
    for (int i = 0; i < count; i++) {
      assertEquals(
          202,
          send(
                  first,
                  "POST",
                  "/v1/agents/" + remote + "/notifications",
                  "{\"type\":\"big\",\"payload\":{\"i\":" + i + ",\"blob\":\"" + blob + "\"}}")
              .statusCode());
    }

    // Each activation crosses from the third node to the first in one message, so it carries at
    // most rota.agent.max-activation-bytes (128 KiB) of the 1 MiB; the rest follow turn by turn.
    List<Integer> seen = new ArrayList<>();
    int turns = 0;
    boolean more = true;
    while (more && turns < 40) {
      JsonNode claim =
          JSON.readTree(
              send(
                      first,
                      "POST",
                      "/v1/claims",
                      "{\"runnerId\":\"big-runner\",\"mode\":\"notification\","
                          + "\"capabilities\":[\"big\"],\"waitSeconds\":10}")
                  .body());
      assertEquals("assigned", claim.get("status").asText(), "turn " + turns);
      JsonNode assignment = claim.get("assignment");
      for (JsonNode n : assignment.get("notifications")) {
        assertEquals(blob.length(), n.get("payload").get("blob").asText().length());
        seen.add(n.get("payload").get("i").asInt());
      }
      assertTrue(assignment.get("notifications").size() < count, "all in one message");
      more = assignment.get("more").asBoolean();
      String leaseId = assignment.get("leaseId").asText();
      assertEquals(
          200,
          send(
                  first,
                  "POST",
                  "/v1/leases/" + leaseId + "/complete",
                  "{\"runnerId\":\"big-runner\"}")
              .statusCode());
      turns++;
    }
    List<Integer> expected = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      expected.add(i);
    }
    assertEquals(expected, seen, "every notification once, oldest first");
    assertTrue(turns > 1);
    JsonNode view = JSON.readTree(send(third, "GET", "/v1/agents/" + remote, null).body());
    assertEquals(0, view.get("inbox").get("unread").asInt());
  }

  /**
   * Registers agents {@code prefix-i} needing {@code capability} until one lives on {@code node}.
   */
  private String agentHostedOn(RotaNode node, String prefix, String capability) throws Exception {
    for (int i = 0; i < 60; i++) {
      String id = prefix + "-" + i;
      assertEquals(
          201,
          send(
                  nodes.get(0),
                  "PUT",
                  "/v1/agents/" + id,
                  "{\"capabilities\":[\"" + capability + "\"]}")
              .statusCode());
      if (hostedAgents(node).contains(id)) {
        return id;
      }
    }
    throw new AssertionError("no agent landed on " + node.clusterAddress());
  }

  private Set<String> hostedAgents(RotaNode node) throws Exception {
    return ClusterNodes.hostedAgents(node, TIMEOUT);
  }

  /** Activations completed by in-cluster runners, per node. */
  private Map<String, Long> completedByNode() throws Exception {
    ActorSystem<?> system = nodes.get(0).system();
    Receptionist.Listing listing =
        AskPattern.<Receptionist.Command, Receptionist.Listing>ask(
                system.receptionist(),
                r -> Receptionist.find(RunnerPool.SERVICE_KEY, r),
                TIMEOUT,
                system.scheduler())
            .toCompletableFuture()
            .get();
    Map<String, Long> byNode = new HashMap<>();
    for (ActorRef<RunnerPool.Command> pool : listing.getServiceInstances(RunnerPool.SERVICE_KEY)) {
      RunnerPool.Runners runners =
          AskPattern.<RunnerPool.Command, RunnerPool.Runners>ask(
                  pool, RunnerPool.GetRunners::new, TIMEOUT, system.scheduler())
              .toCompletableFuture()
              .get();
      long completed = runners.runners().stream().mapToLong(RunnerStatus::completed).sum();
      byNode.merge(runners.node(), completed, Long::sum);
    }
    return byNode;
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
