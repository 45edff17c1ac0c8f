package dev.rota.http;

import static dev.rota.http.testing.RouteAssertions.assertError;
import static dev.rota.http.testing.RouteAssertions.fieldNames;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.rota.cluster.runner.RunnerPool;
import dev.rota.http.testing.ApiCalls;
import dev.rota.http.testing.JUnit5RouteTest;
import dev.rota.http.testing.RotaTestCluster;
import java.time.Duration;
import java.util.List;
import org.apache.pekko.actor.testkit.typed.javadsl.LogCapturingExtension;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.receptionist.Receptionist;
import org.apache.pekko.http.javadsl.model.HttpRequest;
import org.apache.pekko.http.javadsl.testkit.TestRouteResult;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@code GET /admin/pools} and the capacity answers of {@code /admin/stats} on a one-node cluster
 * on H2 whose pool scaler counts every 300 ms: a notification pool that also runs in-cluster (its
 * runners take 300 ms per activation) and an exploration pool with no runner at all.
 */
@ExtendWith(LogCapturingExtension.class)
class PoolRoutesTest extends JUnit5RouteTest {
  private static RotaTestCluster cluster;
  private final ApiCalls api = new ApiCalls(this::run);

  @BeforeAll
  static void startCluster() {
    cluster =
        RotaTestCluster.withDatabase(
            "PoolRoutesTest",
            """
            rota.pools {
              interval = 300ms
              scale-down-delay = 2s
              pools = [
                { name = pool-notify, mode = notification, capabilities = [pool-test],
                  min = 1, max = 4, target-inbox-wait = 1s }
                { name = pool-explore, mode = exploration, capabilities = [pool-explore],
                  min = 0, max = 3, target-staleness = 30s }
              ]
            }
            """);
    cluster.startRunnerPool(
        """
        rota.runners.enabled = true
        rota.runners.poll-wait = 1s
        rota.runners.pools = [
          { name = pool-notify, count = 1, min = 1, max = 4, mode = notification,
            capabilities = [pool-test], executor = noop, executor-settings { delay = 300ms } }
        ]
        """);
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

  private JsonNode pool(String name) {
    for (JsonNode pool : api.get("/admin/pools").get("pools")) {
      if (pool.get("name").asText().equals(name)) {
        return pool;
      }
    }
    throw new AssertionError("no pool " + name);
  }

  /** The size this node's in-cluster pool pool-notify is held at. */
  private int inClusterSize() {
    TestProbe<Receptionist.Listing> listing = TestProbe.create(cluster.system());
    cluster
        .system()
        .receptionist()
        .tell(Receptionist.find(RunnerPool.SERVICE_KEY, listing.getRef()));
    var pool =
        listing.receiveMessage().getServiceInstances(RunnerPool.SERVICE_KEY).iterator().next();
    TestProbe<RunnerPool.Runners> runners = TestProbe.create(cluster.system());
    pool.tell(new RunnerPool.GetRunners(runners.getRef()));
    return runners.receiveMessage().desired().get("pool-notify");
  }

  @Test
  void listsEveryConfiguredPoolWithApiMdsFieldsFirst() {
    eventually(Duration.ofSeconds(15), () -> api.get("/admin/pools"));
    JsonNode list = api.get("/admin/pools");
    assertEquals(List.of("pools", "meanActivationSeconds", "updatedAt"), fieldNames(list));
    JsonNode notify = pool("pool-notify");
    assertEquals(
        List.of(
            "name",
            "mode",
            "capabilities",
            "min",
            "max",
            "active",
            "busy",
            "desired",
            "reason",
            "inCluster",
            "backlog",
            "capacity"),
        fieldNames(notify));
    assertEquals("notification", notify.get("mode").asText());
    assertEquals("[\"pool-test\"]", notify.get("capabilities").toString());
    assertEquals(1, notify.get("min").asInt());
    assertEquals(4, notify.get("max").asInt());
    assertTrue(notify.get("reason").asText().contains("inbox"), notify.toString());
    assertEquals(
        List.of(
            "agentsWithInbox",
            "waiting",
            "oldestUnreadAgeSeconds",
            "agents",
            "maxStalenessSeconds"),
        fieldNames(notify.get("backlog")));
    assertEquals(
        List.of(
            "meanActivationSeconds",
            "idealIntervalSeconds",
            "targetStalenessSeconds",
            "runnersForTargetStaleness"),
        fieldNames(notify.get("capacity")));
    assertEquals("exploration", pool("pool-explore").get("mode").asText());
    assertEquals(30, pool("pool-explore").at("/capacity/targetStalenessSeconds").asLong());
  }

  @Test
  void aBurstRaisesTheNotificationPoolToItsMaxAndItShrinksBackAfterTheDrain() {
    for (int i = 0; i < 24; i++) {
      api.register("burst-" + i, "pool-test");
    }
    for (int i = 0; i < 24; i++) {
      api.notify("burst-" + i, "mention", "{}");
    }
    eventually(
        Duration.ofSeconds(20),
        () -> {
          JsonNode notify = pool("pool-notify");
          assertEquals(4, notify.get("desired").asInt(), notify.toString());
          assertEquals(4, notify.get("inCluster").asInt(), notify.toString());
        });
    eventually(Duration.ofSeconds(10), () -> assertEquals(4, inClusterSize()));
    // 24 activations of 300 ms on 4 runners: about 2 s; then 2 s of scale-down delay.
    eventually(
        Duration.ofSeconds(40),
        () -> {
          JsonNode notify = pool("pool-notify");
          assertEquals(0, notify.at("/backlog/agentsWithInbox").asLong(), notify.toString());
          assertEquals(1, notify.get("desired").asInt(), notify.toString());
        });
    eventually(Duration.ofSeconds(10), () -> assertEquals(1, inClusterSize()));
    JsonNode stats = api.get("/admin/stats");
    assertTrue(stats.at("/fairness/meanActivationSeconds").asDouble() >= 0.3, stats.toString());
  }

  @Test
  void answersHowManyRunnersATargetStalenessNeeds() {
    for (int i = 0; i < 10; i++) {
      api.register("explore-" + i, "pool-explore");
    }
    // One activation measured, so that T is known.
    api.register("measure", "pool-explore-measure");
    String leaseId =
        api.assignment("measuring-runner", "pool-explore-measure").get("leaseId").asText();
    api.post("/v1/leases/" + leaseId + "/complete", "{\"runnerId\": \"measuring-runner\"}")
        .assertStatusCode(200);

    eventually(
        Duration.ofSeconds(15),
        () -> {
          JsonNode explore = pool("pool-explore");
          assertEquals(10, explore.at("/backlog/agents").asLong(), explore.toString());
          assertTrue(explore.at("/capacity/meanActivationSeconds").asDouble() > 0);
        });
    JsonNode explore = api.get("/admin/pools?targetStalenessSeconds=1").get("pools").get(1);
    assertEquals("pool-explore", explore.get("name").asText());
    assertEquals(1, explore.at("/capacity/targetStalenessSeconds").asLong());
    assertTrue(explore.at("/capacity/runnersForTargetStaleness").asLong() >= 1, explore.toString());
    // No exploration runner: no interval to speak of.
    assertEquals(0, explore.at("/capacity/idealIntervalSeconds").asLong());

    JsonNode stats = api.get("/admin/stats?targetStalenessSeconds=60");
    assertEquals(
        List.of(
            "maxStalenessSeconds",
            "idealIntervalSeconds",
            "meanActivationSeconds",
            "targetStalenessSeconds",
            "runnersForTargetStaleness"),
        fieldNames(stats.get("fairness")));
    assertEquals(60, stats.at("/fairness/targetStalenessSeconds").asLong());
    assertTrue(stats.at("/fairness/runnersForTargetStaleness").asLong() >= 1, stats.toString());
    assertEquals(3600, api.get("/admin/stats").at("/fairness/targetStalenessSeconds").asLong());
  }

  @Test
  void whileTheSystemIsPausedThePoolsHoldTheirCount() throws Exception {
    api.post("/admin/pause", "").assertStatusCode(200);
    try {
      eventually(
          Duration.ofSeconds(15),
          () -> assertTrue(pool("pool-notify").get("reason").asText().startsWith("system paused")));
      int before = pool("pool-notify").get("desired").asInt();
      for (int i = 0; i < 12; i++) {
        api.register("paused-" + i, "pool-test");
        api.notify("paused-" + i, "mention", "{}");
      }
      eventually(
          Duration.ofSeconds(15),
          () -> assertEquals(12, pool("pool-notify").at("/backlog/waiting").asLong()));
      Thread.sleep(1000); // three scaler rounds (300 ms here), which must change nothing
      JsonNode notify = pool("pool-notify");
      assertEquals(before, notify.get("desired").asInt(), notify.toString());
      assertTrue(notify.get("reason").asText().startsWith("system paused"), notify.toString());
    } finally {
      api.post("/admin/resume", "").assertStatusCode(200);
    }
    eventually(
        Duration.ofSeconds(30),
        () -> assertEquals(0, pool("pool-notify").at("/backlog/agentsWithInbox").asLong()));
  }

  @Test
  void statsDesiredIsThePoolsDesiredSummed() {
    eventually(
        Duration.ofSeconds(15),
        () -> {
          long sum = 0;
          for (JsonNode pool : api.get("/admin/pools").get("pools")) {
            sum += pool.get("desired").asLong();
          }
          assertEquals(sum, api.get("/admin/stats").at("/runners/desired").asLong());
        });
  }

  @Test
  void refusesATargetStalenessThatIsNotAWholePositiveNumberOfSeconds() {
    for (String path : new String[] {"/admin/pools", "/admin/stats"}) {
      for (String value : new String[] {"0", "-5", "abc", "1.5", "31536001"}) {
        assertError(
            run(HttpRequest.GET(path + "?targetStalenessSeconds=" + value)),
            400,
            "invalid",
            "targetStalenessSeconds");
      }
    }
  }

  private void eventually(Duration max, Runnable assertion) {
    TestProbe.create(cluster.system())
        .awaitAssert(
            max,
            Duration.ofMillis(200),
            () -> {
              assertion.run();
              return null;
            });
  }
}
