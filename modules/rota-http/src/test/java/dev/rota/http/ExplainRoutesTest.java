package dev.rota.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.rota.http.testing.ApiCalls;
import dev.rota.http.testing.JUnit5RouteTest;
import dev.rota.http.testing.RotaTestCluster;
import dev.rota.http.testing.RouteAssertions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.pekko.actor.testkit.typed.javadsl.LogCapturingExtension;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.http.javadsl.model.HttpRequest;
import org.apache.pekko.http.javadsl.testkit.TestRouteResult;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * GET /v1/agents/{agentId}/explain on a real cluster with a read model: each blocking reason as the
 * agent, the pause switch and the runners report it, and the agent's rank in each order among its
 * capability set. Each test uses capabilities of its own, so ranks count only its agents.
 */
@ExtendWith(LogCapturingExtension.class)
class ExplainRoutesTest extends JUnit5RouteTest {
  private static RotaTestCluster cluster;

  private final ApiCalls api = new ApiCalls(this::run);

  @BeforeAll
  static void startCluster() {
    cluster = RotaTestCluster.withDatabase("ExplainRoutesTest");
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

  private JsonNode explain(String agentId) {
    return api.get("/v1/agents/" + agentId + "/explain");
  }

  private static List<String> reasons(JsonNode explanation) {
    List<String> reasons = new ArrayList<>();
    explanation.get("blockedBy").forEach(b -> reasons.add(b.get("reason").asText()));
    return reasons;
  }

  /**
   * A notification runner offering {@code capability} asks once, without waiting: it takes only
   * inbox work, so an idle agent stays where it is, and the runner counts as seen.
   */
  private void runnerAsks(String runnerId, String capability) {
    api.claim(
        "{\"runnerId\": \""
            + runnerId
            + "\", \"mode\": \"notification\", \"capabilities\": [\""
            + capability
            + "\"]}");
  }

  private void eventually(Runnable assertion) {
    TestProbe.create(cluster.system())
        .awaitAssert(
            Duration.ofSeconds(15),
            Duration.ofMillis(200),
            () -> {
              assertion.run();
              return null;
            });
  }

  @Test
  void anUnknownAgentIsNotRegistered() {
    JsonNode e = explain("explain-nobody");
    assertFalse(e.get("eligible").asBoolean());
    assertEquals(List.of("not_registered"), reasons(e));
    assertTrue(e.get("inbox").isNull());
  }

  @Test
  void anAgentNoRunnerFitsSaysSoAndStillHasItsRank() {
    api.register("explain-lonely", "cap-lonely");
    api.notify("explain-lonely", "m", "{}");
    eventually(
        () -> {
          JsonNode e = explain("explain-lonely");
          assertEquals(List.of("no_runner_with_capabilities"), reasons(e), e.toString());
          assertEquals(1, e.at("/inbox/unread").asInt());
          assertEquals(1, e.at("/inbox/rank").asInt(), e.toString());
          assertEquals(0, e.at("/inbox/ahead").asInt());
          assertTrue(e.at("/staleness/rank").isNull(), "with unread work it is not stale work");
        });
  }

  @Test
  void ranksAnAgentBehindTheAgentsWithMoreUnread() {
    String cap = "cap-rank";
    for (String id : List.of("rank-a", "rank-b", "rank-c")) {
      api.register(id, cap);
    }
    api.notify("rank-a", "m", "{}");
    api.notify("rank-a", "m", "{}");
    api.notify("rank-a", "m", "{}");
    api.notify("rank-b", "m", "{}");
    api.notify("rank-b", "m", "{}");
    api.notify("rank-c", "m", "{}");
    eventually(
        () -> {
          JsonNode c = explain("rank-c");
          assertEquals(3, c.at("/inbox/rank").asInt(), c.toString());
          assertEquals(2, c.at("/inbox/ahead").asInt());
          assertEquals(1, explain("rank-a").at("/inbox/rank").asInt());
        });
  }

  @Test
  void aLeasedAgentIsBlockedUntilItsLeaseExpiresAndAPausedOneByItsPause() {
    api.register("explain-leased", "cap-leased");
    api.notify("explain-leased", "m", "{}");
    JsonNode lease = api.assignment("explain-runner", "cap-leased");
    JsonNode e = explain("explain-leased");
    assertEquals(List.of("leased"), reasons(e), e.toString());
    assertEquals(lease.get("expiresAt").asText(), e.at("/blockedBy/0/until").asText());
    assertTrue(e.at("/inbox/rank").isNull());
    assertTrue(e.at("/blockedBy/0/detail").asText().contains("explain-runner"), e.toString());
    assertFalse(e.toString().contains(lease.get("leaseId").asText()), "a producer reads this");

    api.post(
        "/v1/leases/" + lease.get("leaseId").asText() + "/complete",
        "{\"runnerId\": \"explain-runner\"}");
    api.post("/v1/agents/explain-leased/pause", "");
    runnerAsks("explain-runner", "cap-leased");
    assertEquals(List.of("paused"), reasons(explain("explain-leased")));
  }

  @Test
  void aSnoozedAgentAndTheMinimumIntervalGiveTheirEnds() {
    run(RouteAssertions.jsonRequest(
            "PUT",
            "/v1/agents/explain-rested",
            "{\"capabilities\": [\"cap-rested\"], \"minActivationIntervalSeconds\": 3600}"))
        .assertStatusCode(201);
    api.notify("explain-rested", "m", "{}");
    JsonNode first = api.assignment("rested-runner", "cap-rested");
    api.post(
        "/v1/leases/" + first.get("leaseId").asText() + "/complete",
        "{\"runnerId\": \"rested-runner\"}");
    JsonNode rested = explain("explain-rested");
    assertEquals(List.of("min_interval"), reasons(rested), rested.toString());
    assertTrue(rested.at("/staleness/rank").isNull());

    api.notify("explain-rested", "m", "{}");
    JsonNode second = api.assignment("rested-runner", "cap-rested");
    api.post(
        "/v1/leases/" + second.get("leaseId").asText() + "/fail",
        "{\"runnerId\": \"rested-runner\", \"action\": \"snooze\", \"snoozeSeconds\": 600}");
    JsonNode snoozed = explain("explain-rested");
    assertEquals(List.of("snoozed"), reasons(snoozed), snoozed.toString());
    assertFalse(snoozed.at("/blockedBy/0/until").isNull());
  }

  @Test
  void aPausedSystemIsAReasonForEveryAgent() {
    api.register("explain-system", "cap-system");
    runnerAsks("system-runner", "cap-system");
    api.post("/admin/pause", "");
    try {
      assertEquals(List.of("system_paused"), reasons(explain("explain-system")));
    } finally {
      api.post("/admin/resume", "");
    }
    JsonNode e = explain("explain-system");
    assertEquals(List.of(), reasons(e));
    assertTrue(e.get("eligible").asBoolean());
  }
}
