package dev.rota.server;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.rota.server.testing.Databases;
import dev.rota.server.testing.NodeHttp;
import dev.rota.server.testing.TestDatabase;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The assignment rule over HTTP, with runners racing: 30 agents and 4 exploration runners, each
 * claiming with a long poll and completing at once for 12 s, on one node with its default 16
 * partitions on PostgreSQL. Strict stalest-first gives every agent its turn before any gets a
 * second: between two grants of one agent, every other agent is granted, except those whose turn is
 * still in flight (at most one per other runner) and the grants the runners' answers reorder (at
 * most one per runner), so at least {@code AGENTS - 1 - 2 * RUNNERS} others. (The claim path that
 * ranked partitions and then claimed whatever the winner's coordinator held next spread the
 * activations per agent 3–5.) The spread of activations per agent is printed, not held: a turn
 * whose runner stalls (a descheduled thread on a loaded machine) costs its agent the rounds the
 * others take meanwhile, which stalest-first never gives back.
 */
class HttpFairnessTest extends NodeOnDatabase {

  private static final int AGENTS = 30;
  private static final int RUNNERS = 4;
  private static final Duration RUN = Duration.ofSeconds(12);
  private static final String CAPABILITY = "fairness-http";

  @Override
  TestDatabase newDatabase() {
    return Databases.postgres();
  }

  @Override
  Config nodeConfig(TestDatabase database) {
    return postgresConfig(ConfigFactory.empty(), database);
  }

  @Test
  void explorationRunnersOverHttpTakeAgentsStalestFirst() throws Exception {
    NodeHttp http = new NodeHttp(node.httpPort());
    awaitReady(new NodeHttp(node.managementPort()));
    for (int i = 0; i < AGENTS; i++) {
      http.json(
          "PUT",
          "/v1/agents/fair-" + i,
          "{\"name\": \"fair " + i + "\", \"capabilities\": [\"" + CAPABILITY + "\"]}",
          201);
    }
    Map<String, Integer> counts = new ConcurrentHashMap<>();
    List<String> grants = Collections.synchronizedList(new ArrayList<>());
    List<String> problems = new CopyOnWriteArrayList<>();
    ExecutorService pool = Executors.newFixedThreadPool(RUNNERS);
    long end = System.nanoTime() + RUN.toNanos();
    List<Future<?>> loops = new ArrayList<>();
    for (int r = 0; r < RUNNERS; r++) {
      String runner = "http-explorer-" + r;
      loops.add(
          pool.submit(
              () -> {
                while (System.nanoTime() < end) {
                  JsonNode reply =
                      http.json(
                          "POST",
                          "/v1/claims",
                          "{\"runnerId\": \""
                              + runner
                              + "\", \"mode\": \"exploration\", \"capabilities\": [\""
                              + CAPABILITY
                              + "\"], \"waitSeconds\": 2}",
                          200);
                  if (!"assigned".equals(reply.path("status").asText())) {
                    problems.add(runner + " got " + reply);
                    continue;
                  }
                  JsonNode assignment = reply.path("assignment");
                  counts.merge(assignment.path("agentId").asText(), 1, Integer::sum);
                  grants.add(assignment.path("agentId").asText());
                  http.json(
                      "POST",
                      "/v1/leases/" + assignment.path("leaseId").asText() + "/complete",
                      "{\"runnerId\": \"" + runner + "\"}",
                      200);
                }
              }));
    }
    for (Future<?> loop : loops) {
      loop.get(RUN.toSeconds() + 60, TimeUnit.SECONDS);
    }
    pool.shutdown();
    Map<String, Integer> all = new TreeMap<>();
    for (int i = 0; i < AGENTS; i++) {
      all.put("fair-" + i, counts.getOrDefault("fair-" + i, 0));
    }
    int min = all.values().stream().mapToInt(Integer::intValue).min().orElseThrow();
    int max = all.values().stream().mapToInt(Integer::intValue).max().orElseThrow();
    int total = all.values().stream().mapToInt(Integer::intValue).sum();
    assertEquals(List.of(), problems, "every claim of a runner finds a stale agent");
    assertTrue(total >= 2 * AGENTS, "too few activations to judge: " + total + " " + all);
    System.out.printf("activations per agent %d..%d over %d grants%n", min, max, total);
    assertEquals(
        List.of(),
        earlyRepeats(grants, AGENTS - 1 - 2 * RUNNERS),
        "an agent granted again before the others had their turns: " + all);
  }

  @Test
  void anAgentGrantedAgainBeforeTheOthersIsFound() {
    List<String> rotation = List.of("a", "b", "c", "d", "a", "b", "c", "d", "a");
    assertEquals(List.of(), earlyRepeats(rotation, 3));
    List<String> favoured = List.of("a", "b", "c", "d", "a", "b", "a", "c", "d");
    assertEquals(List.of("a at grant 6 after 1 others"), earlyRepeats(favoured, 3));
  }

  /**
   * The grants (in the order the runners heard them) after which an agent was granted again with
   * fewer than {@code least} distinct other agents granted between.
   */
  static List<String> earlyRepeats(List<String> grants, int least) {
    Map<String, Integer> last = new HashMap<>();
    List<String> early = new ArrayList<>();
    for (int i = 0; i < grants.size(); i++) {
      Integer previous = last.put(grants.get(i), i);
      if (previous != null) {
        long others = grants.subList(previous + 1, i).stream().distinct().count();
        if (others < least) {
          early.add(grants.get(i) + " at grant " + i + " after " + others + " others");
        }
      }
    }
    return early;
  }

  private static void awaitReady(NodeHttp http) {
    await("node ready")
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(100))
        .until(() -> http.send("GET", "/ready", null).statusCode() == 200);
  }
}
