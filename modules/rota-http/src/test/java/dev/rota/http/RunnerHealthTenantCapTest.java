package dev.rota.http;

import static dev.rota.http.testing.ApiCalls.withToken;
import static dev.rota.http.testing.RouteAssertions.assertError;
import static dev.rota.http.testing.RouteAssertions.body;
import static dev.rota.http.testing.RouteAssertions.jsonRequest;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.rota.http.testing.JUnit5RouteTest;
import dev.rota.http.testing.RotaTestCluster;
import java.util.ArrayList;
import java.util.List;
import org.apache.pekko.actor.testkit.typed.javadsl.LogCapturingExtension;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.http.javadsl.server.Route;
import org.apache.pekko.http.javadsl.testkit.TestRouteResult;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Runner ids are one namespace across tenants, so what one tenant's runners say about themselves
 * must not reach another's: a tenant's token may degrade at most {@code
 * rota.runner-health.max-blocks-per-tenant} runners, after which another tenant's runner is still
 * degraded when it asks; and a token scoped to tenants without {@code runnerIds} acts as no runner.
 */
@ExtendWith(LogCapturingExtension.class)
class RunnerHealthTenantCapTest extends JUnit5RouteTest {
  private static final String CONFIG =
      """
      rota.tenants { acme {}, beta {} }
      rota.runner-health.max-blocks = 12
      rota.runner-health.max-blocks-per-tenant = 3
      rota.http.tokens = [
        { token = "r-acme", roles = [runner], tenants = [acme], runnerIds = ["acme-*"] }
        { token = "r-beta", roles = [runner], tenants = [beta], runnerIds = ["beta-*"] }
        { token = "acme-admin", roles = [admin], tenants = [acme] }
        { token = "admin", roles = [admin] }
      ]
      """;

  private static RotaTestCluster cluster;
  private static Route route;

  @BeforeAll
  static void start() {
    cluster = RotaTestCluster.withDatabase("RunnerHealthTenantCapTest", CONFIG);
    route = cluster.routes(cluster.settings()).route();
  }

  @AfterAll
  static void stop() {
    cluster.shutdown();
  }

  @Override
  protected ActorSystem<?> typedSystem() {
    return cluster.system();
  }

  private TestRouteResult degrade(String token, String runnerId) {
    return testRoute(route)
        .run(
            withToken(
                jsonRequest(
                    "POST",
                    "/v1/runners/" + runnerId + "/health",
                    "{\"degraded\": true, \"reason\": \"flood\", \"seconds\": 3600}"),
                token));
  }

  private String statusAfter(TestRouteResult result) {
    return body(result.assertStatusCode(200)).get("status").asText();
  }

  @Test
  void oneTenantsRunnersCannotTakeEveryBlock() {
    List<String> degraded = new ArrayList<>();
    for (int i = 0; i < 15; i++) {
      if (statusAfter(degrade("r-acme", "acme-" + i)).equals("degraded")) {
        degraded.add("acme-" + i);
      }
    }
    assertEquals(List.of("acme-0", "acme-1", "acme-2"), degraded);

    assertEquals("degraded", statusAfter(degrade("r-beta", "beta-1")));
    // A token of every tenant counts only in max-blocks.
    assertEquals("degraded", statusAfter(degrade("admin", "shared-1")));
    // A runner already blocked may be reported again.
    assertEquals("degraded", statusAfter(degrade("r-acme", "acme-0")));
  }

  @Test
  void aTokenScopedToTenantsWithoutRunnerIdsActsAsNoRunner() {
    assertError(degrade("acme-admin", "beta-2"), 403, "forbidden", "runnerIds");
    assertError(
        testRoute(route)
            .run(
                withToken(
                    jsonRequest("POST", "/v1/claims", "{\"runnerId\": \"acme-9\"}"), "acme-admin")),
        403,
        "forbidden",
        "runnerIds");
  }
}
