package dev.rota.faults.harness;

import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.rota.client.AgentSpec;
import dev.rota.client.Assignment;
import dev.rota.client.ClaimResult;
import dev.rota.client.Notification;
import dev.rota.client.RotaClient;
import dev.rota.client.RotaException;
import dev.rota.client.RunnerMode;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * Acknowledged means durable: one node from the runnable jar, eight threads posting notifications
 * to eight agents as fast as the node acknowledges them, and {@code kill -9} of the node while they
 * post, {@code rota.faults.kills} times (once in the default build, five times with {@code
 * -Pfaults}), each time started again on the same data. At the end every notification that was
 * answered 202 must be in its agent's inbox: the test claims and completes them all and compares
 * their keys with the acknowledged ones.
 *
 * <p>On H2 (the README's node: the embedded default, a file database under the data directory) and
 * on PostgreSQL (the suite's embedded server, durable settings). A notification posted while the
 * node died may or may not be there (its 202 never came); only the acknowledged ones are counted.
 */
class KillWhileAcknowledgingTest {
  private static final int AGENTS = 8;
  private static final int KILLS = Integer.getInteger("rota.faults.kills", 1);

  private final RotaApi api = new RotaApi();

  @Test
  void everyAcknowledgedNotificationSurvivesKillsOnH2() {
    Path dir = SingleNode.out().resolve("kill-ack-h2");
    NodeProcess node = SingleNode.create(dir, SingleNode.config("dev.conf"), Map.of());
    killWhilePosting(node, "H2");
  }

  @Test
  void everyAcknowledgedNotificationSurvivesKillsOnPostgres() {
    Path dir = SingleNode.out().resolve("kill-ack-postgres");
    try (FaultPostgres db = FaultPostgres.start(dir.resolve("postgres"))) {
      NodeProcess node =
          SingleNode.create(
              dir,
              SingleNode.config("postgres.conf"),
              Map.of("ROTA_DB_URL", db.jdbcUrl(), "ROTA_DB_USER", "postgres"));
      killWhilePosting(node, "PostgreSQL");
    }
  }

  private void killWhilePosting(NodeProcess node, String database) {
    List<String> agents = new ArrayList<>();
    for (int i = 0; i < AGENTS; i++) {
      agents.add("ack-" + i);
    }
    RotaClient client =
        RotaClient.builder(URI.create("http://127.0.0.1:" + node.httpPort()))
            .connectTimeout(Duration.ofSeconds(1))
            .readTimeout(Duration.ofSeconds(10))
            .retries(0)
            .build();
    Map<String, String> acknowledged = new ConcurrentHashMap<>(); // key -> agent
    List<Integer> perKill = new ArrayList<>();
    List<Integer> unreadAfterRestart = new ArrayList<>();
    try {
      node.start();
      SingleNode.awaitReady(api, node);
      AgentSpec spec = AgentSpec.create().maxInboxDepth(100_000).maxAttempts(100);
      for (String agent : agents) {
        client.registerAgent(agent, spec);
      }
      for (int kill = 1; kill <= KILLS; kill++) {
        int before = acknowledged.size();
        postUntilKilled(node, client, agents, kill, acknowledged);
        perKill.add(acknowledged.size() - before);
        node.start();
        SingleNode.awaitReady(api, node);
        unreadAfterRestart.add(unread(client, agents));
      }
      Map<String, Set<String>> found = drain(client, agents);
      List<String> lost = new ArrayList<>();
      Map<Integer, Integer> lostPerKill = new HashMap<>();
      acknowledged.forEach(
          (key, agent) -> {
            if (!found.getOrDefault(agent, Set.of()).contains(key)) {
              lost.add(key);
              lostPerKill.merge(Integer.parseInt(key.split("/")[1]), 1, Integer::sum);
            }
          });
      String summary =
          String.format(
              "%s: %d kills, %d notifications acknowledged (per kill %s; unread after each"
                  + " restart %s), %d lost (by kill %s)",
              database,
              KILLS,
              acknowledged.size(),
              perKill,
              unreadAfterRestart,
              lost.size(),
              lostPerKill);
      System.out.println("[kill-ack] " + summary);
      assertTrue(perKill.stream().allMatch(n -> n > 0), "a kill came before any 202: " + summary);
      assertTrue(
          lost.isEmpty(),
          summary
              + "; e.g. "
              + lost.stream().sorted().limit(10).toList()
              + " (logs: "
              + SingleNode.out());
    } finally {
      client.close();
      node.destroy();
    }
  }

  /**
   * Posts from one thread per agent until the node is killed, 1.5–3 s after the posting started;
   * every 202 goes into {@code acknowledged}. The key is {@code agent/kill/sequence}.
   */
  private static void postUntilKilled(
      NodeProcess node,
      RotaClient client,
      List<String> agents,
      int kill,
      Map<String, String> acknowledged) {
    AtomicBoolean posting = new AtomicBoolean(true);
    List<Thread> threads = new ArrayList<>();
    for (String agent : agents) {
      Thread thread =
          new Thread(
              () -> {
                int sequence = 0;
                while (posting.get()) {
                  String key = agent + "/" + kill + "/" + sequence++;
                  try {
                    client.notify(
                        agent,
                        Notification.of(
                            "ack", JsonNodeFactory.instance.objectNode().put("k", key)));
                    acknowledged.put(key, agent);
                  } catch (RotaException e) {
                    FaultCluster.sleep(Duration.ofMillis(20)); // the node is gone or refusing
                  }
                }
              },
              "post-" + agent);
      thread.setDaemon(true);
      threads.add(thread);
      thread.start();
    }
    FaultCluster.sleep(Duration.ofMillis(ThreadLocalRandom.current().nextLong(1500, 3000)));
    SingleNode.kill(node);
    posting.set(false);
    for (Thread thread : threads) {
      try {
        thread.join(15_000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /**
   * Claims and completes until every agent's inbox is empty; the keys each agent's activations
   * carried. A claim may find nothing while the restarted node still loads its scheduling index, so
   * an empty claim ends the drain only once the agents' views show no unread notification.
   */
  private static Map<String, Set<String>> drain(RotaClient client, List<String> agents) {
    Map<String, Set<String>> found = new HashMap<>();
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (true) {
      ClaimResult result = client.claim("drainer", RunnerMode.NOTIFICATION, Set.of(), 1, 300);
      if (result.assigned()) {
        Assignment assignment = result.assignment();
        for (Assignment.Item item : assignment.notifications()) {
          found
              .computeIfAbsent(assignment.agentId(), a -> new HashSet<>())
              .add(item.payload().path("k").asText());
        }
        client.complete(assignment.leaseId(), "drainer", null);
        continue;
      }
      int unread = unread(client, agents);
      if (unread == 0) {
        return found;
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(
            unread + " notifications still unread and not granted 60 s after the last restart");
      }
    }
  }

  private static int unread(RotaClient client, List<String> agents) {
    return agents.stream().mapToInt(a -> client.getAgent(a).inbox().unread()).sum();
  }
}
