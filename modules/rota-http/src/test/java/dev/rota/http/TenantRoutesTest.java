package dev.rota.http;

import static dev.rota.http.testing.ApiCalls.withToken;
import static dev.rota.http.testing.RouteAssertions.assertError;
import static dev.rota.http.testing.RouteAssertions.body;
import static dev.rota.http.testing.RouteAssertions.fieldNames;
import static dev.rota.http.testing.RouteAssertions.jsonRequest;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.TextNode;
import com.typesafe.config.ConfigFactory;
import dev.rota.cluster.agent.AgentEntity;
import dev.rota.cluster.tenant.TenantTables;
import dev.rota.core.model.AgentConfigPatch;
import dev.rota.core.model.ClaimSpec;
import dev.rota.core.model.RunnerMode;
import dev.rota.http.testing.ApiCalls;
import dev.rota.http.testing.JUnit5RouteTest;
import dev.rota.http.testing.RotaTestCluster;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
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
 * {@code /admin/tenants} on a one-node cluster with the production wiring on H2 and one tenant
 * declared in configuration ({@code cfg}, weight 2). Each test works in tenants of its own. Agents
 * of a tenant are registered through Cluster Sharding under their keys ({@code <tenant>/<id>}), as
 * the agent routes do for a tenant's request.
 */
@ExtendWith(LogCapturingExtension.class)
class TenantRoutesTest extends JUnit5RouteTest {
  private static RotaTestCluster cluster;

  private final ApiCalls api = new ApiCalls(this::run);

  @BeforeAll
  static void startCluster() {
    cluster =
        RotaTestCluster.withDatabase(
            "TenantRoutesTest", "rota.tenants { cfg { weight = 2, max-concurrent = 5 } }");
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

  private TestRouteResult put(String tenant, String json) {
    return run(jsonRequest("PUT", "/admin/tenants/" + tenant, json));
  }

  private JsonNode tenant(String name) {
    return api.get("/admin/tenants/" + name);
  }

  private void agent(String key, boolean notified) throws Exception {
    AgentGateway agents = new AgentGateway(cluster.system(), Duration.ofSeconds(10));
    var registered =
        agents
            .ask(key, r -> new AgentEntity.Register(AgentConfigPatch.empty(), r))
            .toCompletableFuture()
            .get(10, TimeUnit.SECONDS);
    assertTrue(registered instanceof AgentEntity.AgentDetails, registered.toString());
    if (notified) {
      var accepted =
          agents
              .ask(key, r -> new AgentEntity.Notify("mention", TextNode.valueOf("hi"), null, r))
              .toCompletableFuture()
              .get(10, TimeUnit.SECONDS);
      assertTrue(accepted instanceof AgentEntity.Accepted, accepted.toString());
    }
  }

  @Test
  void listsDefaultAndTheConfiguredTenantWithEveryField() {
    JsonNode list = api.get("/admin/tenants");
    assertEquals(List.of("tenants"), fieldNames(list));
    List<String> names = new ArrayList<>();
    list.get("tenants").forEach(t -> names.add(t.get("tenant").asText()));
    assertTrue(names.containsAll(List.of("cfg", "default")), names.toString());
    JsonNode cfg = tenant("cfg");
    assertEquals(
        List.of(
            "tenant",
            "weight",
            "maxConcurrent",
            "maxActivationsPerMinute",
            "agents",
            "unread",
            "leased",
            "activationsPerMinute",
            "share",
            "oldestUnreadAgeSeconds"),
        fieldNames(cfg));
    assertEquals(List.of("actual", "fair"), fieldNames(cfg.get("share")));
    assertEquals(2, cfg.get("weight").asInt());
    assertEquals(5, cfg.get("maxConcurrent").asInt());
    assertTrue(cfg.get("maxActivationsPerMinute").isNull());
  }

  @Test
  void putCreatesATenantAnsweredWith201ThenChangesItWith200AndEveryNodeFollows() {
    TestRouteResult created =
        put("alpha", "{\"weight\": 3, \"maxConcurrent\": 4, \"maxActivationsPerMinute\": null}");
    assertEquals(201, created.statusCode(), created.entityString());
    JsonNode view = body(created);
    assertEquals("alpha", view.get("tenant").asText());
    assertEquals(3, view.get("weight").asInt());
    assertEquals(4, view.get("maxConcurrent").asInt());

    TestRouteResult changed = put("alpha", "{\"weight\": 5}");
    assertEquals(200, changed.statusCode(), changed.entityString());
    assertTrue(body(changed).get("maxConcurrent").isNull(), "absent: no cap");
    assertEquals(5, tenant("alpha").get("weight").asInt());
    // The node's table follows the directory's publication.
    TenantTables tables = TenantTables.get(cluster.system());
    eventually(() -> assertEquals(5, tables.current().specOf("alpha").weight()));
    // A configured tenant is changed, not created.
    assertEquals(200, put("cfg", "{\"weight\": 2, \"maxConcurrent\": 5}").statusCode());
  }

  @Test
  void putRefusesUnknownFieldsOutOfRangeValuesAndBadNames() {
    assertError(put("beta", "{\"wieght\": 3}"), 400, "invalid", "wieght");
    assertError(put("beta", "{\"weight\": 0}"), 400, "invalid", "weight");
    assertError(put("beta", "{\"weight\": 1001}"), 400, "invalid", "weight");
    assertError(put("beta", "{\"weight\": \"3\"}"), 400, "invalid", "weight");
    assertError(put("beta", "{\"maxConcurrent\": 0}"), 400, "invalid", "maxConcurrent");
    assertError(
        put("beta", "{\"maxActivationsPerMinute\": -5}"),
        400,
        "invalid",
        "maxActivationsPerMinute");
    assertError(put("Beta", "{}"), 400, "invalid", "tenant name");
    assertError(put("b_c", "{}"), 400, "invalid", "tenant name");
    assertError(put("a".repeat(65), "{}"), 400, "invalid", "tenant name");
    assertError(run(HttpRequest.GET("/admin/tenants/beta")), 404, "not_found", "beta");
  }

  @Test
  void deletesATenantWithoutAgentsButNotDefaultAConfiguredOneOrAnUnknownOne() {
    assertEquals(201, put("gamma", "{}").statusCode());
    run(HttpRequest.DELETE("/admin/tenants/gamma")).assertStatusCode(204);
    assertError(run(HttpRequest.GET("/admin/tenants/gamma")), 404, "not_found", "gamma");
    assertError(run(HttpRequest.DELETE("/admin/tenants/gamma")), 404, "not_found", "gamma");
    assertError(run(HttpRequest.DELETE("/admin/tenants/default")), 409, "conflict", "default");
    assertError(run(HttpRequest.DELETE("/admin/tenants/cfg")), 409, "conflict", "configuration");
  }

  @Test
  void aTenantWithAgentsCannotBeDeletedAndShowsTheirFigures() throws Exception {
    assertEquals(201, put("delta", "{\"weight\": 4}").statusCode());
    agent("delta/a1", true);
    agent("delta/a2", false);
    eventually(
        () -> {
          JsonNode delta = tenant("delta");
          assertEquals(2, delta.get("agents").asLong());
          assertEquals(1, delta.get("unread").asLong());
          assertEquals(0, delta.get("leased").asLong());
          // The only tenant with work here gets the whole fair share... unless another test's
          // tenant has work too: then its weight's part.
          assertTrue(delta.at("/share/fair").asDouble() > 0, delta.toString());
        });
    assertError(run(HttpRequest.DELETE("/admin/tenants/delta")), 409, "conflict", "2 agents");
  }

  @Test
  void aGrantedAndCompletedTurnCountsAsTheTenantsActivationAndRunnerTime() throws Exception {
    assertEquals(201, put("epsilon", "{}").statusCode());
    agent("epsilon/a1", true);
    eventually(() -> assertEquals(1, tenant("epsilon").get("unread").asLong()));
    // The agent grants and completes a lease as a claim through the dispatcher would have it.
    AgentGateway agents = new AgentGateway(cluster.system(), Duration.ofSeconds(10));
    var granted =
        agents
            .ask(
                "epsilon/a1",
                r ->
                    new AgentEntity.Claim(
                        new ClaimSpec(
                            "tenant-runner", RunnerMode.HYBRID, Set.of(), Duration.ZERO, 60),
                        r))
            .toCompletableFuture()
            .get(10, TimeUnit.SECONDS);
    assertTrue(granted instanceof AgentEntity.Granted, granted.toString());
    String leaseId = ((AgentEntity.Granted) granted).lease().leaseId();
    eventually(() -> assertEquals(1, tenant("epsilon").get("leased").asLong()));
    // The lease must take measurable runner time for the tenant's actual share to exceed 0.
    Thread.sleep(300);
    var done =
        agents
            .ask("epsilon/a1", r -> new AgentEntity.Complete(leaseId, "tenant-runner", null, r))
            .toCompletableFuture()
            .get(10, TimeUnit.SECONDS);
    assertTrue(done instanceof AgentEntity.Done, done.toString());
    eventually(
        () -> {
          JsonNode epsilon = tenant("epsilon");
          assertEquals(1, epsilon.get("activationsPerMinute").asLong(), epsilon.toString());
          assertTrue(epsilon.at("/share/actual").asDouble() > 0, epsilon.toString());
          assertEquals(0, epsilon.get("unread").asLong());
          assertEquals(0, epsilon.get("leased").asLong());
        });
  }

  @Test
  void tenantRoutesNeedAnAdminToken() {
    HttpSettings secured =
        HttpSettings.from(
            ConfigFactory.parseString(
                    """
                    rota.http.tokens = [
                      { token = "producer-token", roles = [producer] }
                      { token = "admin-token", roles = [admin] }
                    ]
                    """)
                .withFallback(cluster.config()));
    var route = cluster.routes(secured).route();
    for (HttpRequest request :
        List.of(
            HttpRequest.GET("/admin/tenants"),
            HttpRequest.GET("/admin/tenants/default"),
            jsonRequest("PUT", "/admin/tenants/zeta", "{}"),
            HttpRequest.DELETE("/admin/tenants/zeta"))) {
      assertError(testRoute(route).run(request), 401, "unauthenticated", "token");
      assertError(
          testRoute(route).run(withToken(request, "producer-token")), 403, "forbidden", "admin");
    }
    testRoute(route)
        .run(withToken(HttpRequest.GET("/admin/tenants"), "admin-token"))
        .assertStatusCode(200);
  }

  @Test
  void answers405ForAWrongMethod() {
    assertError(run(HttpRequest.POST("/admin/tenants")), 405, "method_not_allowed", "GET");
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
}
