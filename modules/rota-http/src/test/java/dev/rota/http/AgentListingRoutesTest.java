package dev.rota.http;

import static dev.rota.http.testing.RouteAssertions.body;
import static dev.rota.http.testing.RouteAssertions.fieldNames;
import static dev.rota.http.testing.RouteAssertions.jsonRequest;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.rota.cluster.agent.AgentEntity;
import dev.rota.cluster.agent.AgentEntity.Done;
import dev.rota.cluster.agent.AgentEntity.Granted;
import dev.rota.core.model.AgentConfig;
import dev.rota.core.model.AgentSummary;
import dev.rota.core.model.ClaimSpec;
import dev.rota.core.model.RunnerMode;
import dev.rota.http.AgentDirectory.AgentPage;
import dev.rota.http.testing.JUnit5RouteTest;
import dev.rota.http.testing.TestCluster;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.pekko.actor.testkit.typed.javadsl.LogCapturingExtension;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.http.javadsl.model.HttpRequest;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@code GET /v1/agents}: the order and pages come from the directory (here fed by every agent
 * change, as the journal writes {@code agent_schedule}), the views from the agents themselves.
 */
@ExtendWith(LogCapturingExtension.class)
class AgentListingRoutesTest extends JUnit5RouteTest {
  private static TestCluster cluster;

  @BeforeAll
  static void startCluster() {
    cluster = TestCluster.start("AgentListingRoutesTest");
  }

  @AfterAll
  static void stopCluster() {
    cluster.shutdown();
  }

  @Override
  protected ActorSystem<?> typedSystem() {
    return cluster.system();
  }

  /** Lists through a directory that only knows the agents whose id starts with the prefix. */
  private JsonNode list(String prefix, String query) {
    return list(cluster.directory().scopedTo(prefix), query);
  }

  private JsonNode list(AgentDirectory directory, String query) {
    RotaRoutes routes =
        new RotaRoutes(cluster.system(), HttpSettings.from(cluster.config()), directory);
    JsonNode page =
        body(
            testRoute(routes.route())
                .run(HttpRequest.GET("/v1/agents" + query))
                .assertStatusCode(200));
    assertEquals(List.of("agents", "next"), fieldNames(page));
    return page;
  }

  private void register(String... agentIds) {
    RotaRoutes routes =
        new RotaRoutes(cluster.system(), HttpSettings.from(cluster.config()), cluster.directory());
    for (String agentId : agentIds) {
      testRoute(routes.route())
          .run(jsonRequest("PUT", "/v1/agents/" + agentId, "{}"))
          .assertStatusCode(201);
    }
  }

  private void notify(String agentId, int times) {
    RotaRoutes routes =
        new RotaRoutes(cluster.system(), HttpSettings.from(cluster.config()), cluster.directory());
    for (int i = 0; i < times; i++) {
      testRoute(routes.route())
          .run(
              jsonRequest(
                  "POST", "/v1/agents/" + agentId + "/notifications", "{\"type\": \"mention\"}"))
          .assertStatusCode(202);
    }
  }

  private static List<String> ids(JsonNode page) {
    List<String> ids = new ArrayList<>();
    page.get("agents").forEach(agent -> ids.add(agent.get("agentId").asText()));
    return ids;
  }

  @Test
  void listsByInboxMostUnreadFirstWithEachAgentsCurrentView() {
    register("inbox-a", "inbox-b", "inbox-c");
    notify("inbox-b", 2);
    notify("inbox-c", 1);

    JsonNode page = list("inbox-", "?order=inbox");

    assertEquals(List.of("inbox-b", "inbox-c", "inbox-a"), ids(page));
    JsonNode first = page.get("agents").get(0);
    assertEquals(2, first.get("inbox").get("unread").asInt());
    assertEquals("idle", first.get("status").asText());
    assertTrue(page.get("next").isNull());
  }

  @Test
  void listsStalestFirstByDefaultNeverActivatedBeforeActivated() {
    register("stale-a", "stale-b", "stale-c");
    activate("stale-a");

    JsonNode page = list("stale-", "");

    assertEquals(List.of("stale-b", "stale-c", "stale-a"), ids(page));
    JsonNode activated = page.get("agents").get(2);
    assertEquals(1, activated.get("activationCount").asLong());
    assertFalse(activated.get("lastActivatedAt").isNull());
  }

  /** One activation, as a runner would do it: claim, then complete. */
  private void activate(String agentId) {
    Granted granted =
        assertInstanceOf(
            Granted.class,
            cluster.ask(
                agentId,
                r ->
                    new AgentEntity.Claim(
                        new ClaimSpec("runner-1", RunnerMode.HYBRID, Set.of(), Duration.ZERO, 60),
                        r)));
    assertInstanceOf(
        Done.class,
        cluster.ask(
            agentId,
            r ->
                new AgentEntity.Complete(
                    granted.lease().leaseId(), granted.lease().runnerId(), null, r)));
  }

  @Test
  void pagesWithLimitAndTheNextCursor() {
    register("page-a", "page-b", "page-c", "page-d", "page-e");

    JsonNode first = list("page-", "?limit=2");
    JsonNode second = list("page-", "?limit=2&after=" + first.get("next").asText());
    JsonNode last = list("page-", "?limit=2&after=" + second.get("next").asText());

    assertEquals(List.of("page-a", "page-b"), ids(first));
    assertEquals(List.of("page-c", "page-d"), ids(second));
    assertEquals(List.of("page-e"), ids(last));
    assertTrue(last.get("next").isNull());
  }

  @Test
  void showsAgentsTheDirectoryDescribesWithoutAskingTheirEntities() {
    register("desc-a");
    // "desc-ghost" has no entity: asked, it would answer not registered and be left out.
    AgentSummary ghost =
        new AgentSummary(
            "desc-ghost",
            true,
            new AgentConfig("Ghost", List.of("code"), 1, 0, 100, 3, null),
            2,
            null,
            0,
            null,
            null,
            7,
            null,
            false,
            List.of());
    AgentDirectory described =
        (tenant, order, limit, after) ->
            new AgentPage(List.of("desc-ghost", "desc-a"), null, Map.of("desc-ghost", ghost));

    JsonNode page = list(described, "");

    assertEquals(List.of("desc-ghost", "desc-a"), ids(page));
    JsonNode shown = page.get("agents").get(0);
    assertEquals("Ghost", shown.get("name").asText());
    assertEquals(2, shown.get("inbox").get("unread").asInt());
    assertEquals(7, shown.get("activationCount").asLong());
    assertEquals(
        fieldNames(page.get("agents").get(1)), fieldNames(shown), "the same fields either way");
  }

  @Test
  void leavesOutAgentsThatAreNoLongerRegistered() {
    register("gone-a");
    AgentDirectory stale =
        (tenant, order, limit, after) -> new AgentPage(List.of("gone-a", "gone-x"), null);

    assertEquals(List.of("gone-a"), ids(list(stale, "")));
  }
}
