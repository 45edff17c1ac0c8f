package dev.rota.http;

import static dev.rota.http.testing.ApiCalls.withToken;
import static dev.rota.http.testing.RouteAssertions.body;
import static dev.rota.http.testing.RouteAssertions.jsonRequest;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.rota.cluster.assign.Dispatcher;
import dev.rota.cluster.assign.WorkProtocol.NoWork;
import dev.rota.cluster.assign.WorkProtocol.RequestWork;
import dev.rota.core.model.RunnerMode;
import dev.rota.http.testing.JUnit5RouteTest;
import dev.rota.http.testing.RotaTestCluster;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Props;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.http.javadsl.model.HttpRequest;
import org.apache.pekko.http.javadsl.server.Route;
import org.apache.pekko.http.javadsl.testkit.TestRouteResult;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Every producer and runner path against an agent of the token's own tenant, of another tenant, and
 * (for runners) under another runner's id: the matrix of statuses tenants promise. Producer {@code
 * p1} and runner {@code r1} belong to tenant {@code acme}, {@code p2} and {@code r2} to {@code
 * beta}; {@code admin} works in every tenant, {@code acme-admin} only in {@code acme}. Both tenants
 * have an agent named {@code bot}: ids are unique within a tenant only.
 */
class TenantIsolationTest extends JUnit5RouteTest {
  private static final String CONFIG =
      """
      rota.tenants { acme { weight = 1 }, beta { weight = 1 } }
      rota.http.tokens = [
        { token = "p1", roles = [producer], tenants = [acme] }
        { token = "p2", roles = [producer], tenants = [beta] }
        { token = "r1", roles = [runner], tenants = [acme], runnerIds = ["acme-*"] }
        { token = "r2", roles = [runner], tenants = [beta], runnerIds = ["beta-*"] }
        { token = "admin", roles = [admin] }
        { token = "acme-admin", roles = [admin], tenants = [acme] }
      ]
      """;

  private static RotaTestCluster cluster;
  private static Route route;

  @BeforeAll
  static void start() {
    cluster = RotaTestCluster.withDatabase("TenantIsolationTest", CONFIG);
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

  private TestRouteResult call(String token, String method, String uri, String json) {
    HttpRequest request =
        json == null
            ? HttpRequest.create(uri)
                .withMethod(
                    org.apache.pekko.http.javadsl.model.HttpMethods.lookup(method).orElseThrow())
            : jsonRequest(method, uri, json);
    return testRoute(route).run(withToken(request, token));
  }

  private int status(String token, String method, String uri, String json) {
    return call(token, method, uri, json).response().status().intValue();
  }

  @Test
  void aProducerSeesAndTouchesOnlyItsOwnTenantsAgents() {
    String cap = "producer-matrix";
    assertEquals(201, status("p1", "PUT", "/v1/agents/bot", register(cap, "acme's")));
    assertEquals(201, status("p2", "PUT", "/v1/agents/bot", register(cap, "beta's")));

    // The same id names two agents, one per tenant.
    assertEquals("acme's", body(call("p1", "GET", "/v1/agents/bot", null)).get("name").asText());
    assertEquals("beta's", body(call("p2", "GET", "/v1/agents/bot", null)).get("name").asText());
    assertEquals("acme", body(call("p1", "GET", "/v1/agents/bot", null)).get("tenant").asText());

    // p2 may not name acme at all: the same 404 as a tenant that does not exist.
    List<String> refused = new ArrayList<>();
    String[][] paths = {
      {"GET", "/v1/agents/bot?tenant=acme", null},
      {"PUT", "/v1/agents/bot?tenant=acme", "{\"metadata\": {\"webhookUrl\": null}}"},
      {"POST", "/v1/agents/bot/notifications?tenant=acme", "{\"type\": \"t\"}"},
      {"POST", "/v1/agents/bot/pause?tenant=acme", null},
      {"POST", "/v1/agents/bot/resume?tenant=acme", null},
      {"GET", "/v1/agents/bot/history?tenant=acme", null},
      {"GET", "/v1/agents/bot/explain?tenant=acme", null},
      {"GET", "/v1/agents?tenant=acme", null},
      {"DELETE", "/v1/agents/bot?tenant=acme", null},
      {"GET", "/v1/agents/bot?tenant=nosuch", null},
    };
    for (String[] path : paths) {
      int status = status("p2", path[0], path[1], path[2]);
      if (status != 404) {
        refused.add(path[0] + " " + path[1] + " -> " + status);
      }
    }
    assertEquals(List.of(), refused, "p2 reached acme's agent");

    // Its own tenant's agent answers on every path.
    assertEquals(202, status("p1", "POST", "/v1/agents/bot/notifications", "{\"type\": \"t\"}"));
    assertEquals(200, status("p1", "GET", "/v1/agents/bot/history", null));
    assertEquals(200, status("p1", "GET", "/v1/agents/bot/explain", null));
    assertEquals(200, status("p1", "POST", "/v1/agents/bot/pause", null));
    assertEquals(200, status("p1", "POST", "/v1/agents/bot/resume", null));

    // acme's agent is untouched by everything p2 tried: still acme's, one notification.
    JsonNode acmeBot = body(call("p1", "GET", "/v1/agents/bot", null));
    assertEquals("acme's", acmeBot.get("name").asText());
    assertEquals(1, acmeBot.get("inbox").get("unread").asInt());
    assertEquals(
        0, body(call("p2", "GET", "/v1/agents/bot", null)).get("inbox").get("unread").asInt());

    // An unscoped admin names the tenant; without it, the default tenant (where no bot lives).
    assertEquals(404, status("admin", "GET", "/v1/agents/bot", null));
    assertEquals(
        "acme's",
        body(call("admin", "GET", "/v1/agents/bot?tenant=acme", null)).get("name").asText());
  }

  @Test
  void listingsHoldTheTenantsOwnAgentsOnly() {
    String cap = "listing-matrix";
    assertEquals(201, status("p1", "PUT", "/v1/agents/listed-a", register(cap, "a")));
    assertEquals(201, status("p2", "PUT", "/v1/agents/listed-b", register(cap, "b")));
    // The read model is written in the events' transaction: the listing sees both at once.
    List<String> acme = ids(body(call("p1", "GET", "/v1/agents?limit=1000", null)));
    List<String> beta = ids(body(call("p2", "GET", "/v1/agents?limit=1000", null)));
    assertTrue(acme.contains("listed-a"), acme.toString());
    assertFalse(acme.contains("listed-b"), acme.toString());
    assertTrue(beta.contains("listed-b"), beta.toString());
    assertFalse(beta.contains("listed-a"), beta.toString());
  }

  @Test
  void aRunnerClaimsOnlyItsTenantsWorkAndReportsOnlyAsItsOwnIds() {
    String cap = "runner-matrix";
    assertEquals(201, status("p1", "PUT", "/v1/agents/worker", register(cap, "acme")));
    assertEquals(201, status("p2", "PUT", "/v1/agents/worker", register(cap, "beta")));
    assertEquals(202, status("p2", "POST", "/v1/agents/worker/notifications", "{\"type\": \"t\"}"));

    // r1 may not take beta's work, nor claim under beta's runner ids or a node's own runner's.
    assertEquals("none", claim("r1", "acme-1", cap, "").get("status").asText());
    assertEquals(403, status("r1", "POST", "/v1/claims", claimBody("beta-1", cap, "")));
    assertEquals(
        403, status("r1", "POST", "/v1/claims", claimBody("127.0.0.1:25520/default-0", cap, "")));
    assertEquals(
        403,
        status("r1", "POST", "/v1/claims", claimBody("acme-1", cap, ", \"tenants\": [\"beta\"]")));

    JsonNode granted = claim("r2", "beta-1", cap, "");
    assertEquals("assigned", granted.get("status").asText(), granted.toString());
    JsonNode assignment = granted.get("assignment");
    assertEquals("worker", assignment.get("agentId").asText());
    assertEquals("beta", assignment.get("tenant").asText());
    String lease = assignment.get("leaseId").asText();

    // Another tenant's runner: the lease does not exist for it.
    for (String action : List.of("heartbeat", "complete", "fail")) {
      assertEquals(
          404,
          status("r1", "POST", "/v1/leases/" + lease + "/" + action, runner("acme-1")),
          action + " by another tenant's runner");
      assertEquals(
          403,
          status("r2", "POST", "/v1/leases/" + lease + "/" + action, runner("acme-1")),
          action + " under another runner's id");
    }
    // Health reports: only as its own ids.
    assertEquals(
        403,
        status(
            "r1",
            "POST",
            "/v1/runners/beta-1/health",
            "{\"degraded\": true, \"reason\": \"x\", \"seconds\": 60}"));
    assertEquals(200, status("r2", "POST", "/v1/runners/beta-1/health", "{\"degraded\": false}"));

    assertEquals(200, status("r2", "POST", "/v1/leases/" + lease + "/heartbeat", runner("beta-1")));
    assertEquals(200, status("r2", "POST", "/v1/leases/" + lease + "/complete", runner("beta-1")));
  }

  /**
   * A report's next claim is the lease's runner's claim for the tenants of the token that reports,
   * as its claim would be: a dispatcher that records what it is asked answers it.
   */
  @Test
  void aNextClaimIsMadeAsTheLeasesRunnerForTheReportingTokensTenants() {
    String cap = "next-matrix";
    assertEquals(201, status("p1", "PUT", "/v1/agents/turner", register(cap, "acme")));
    assertEquals(202, status("p1", "POST", "/v1/agents/turner/notifications", "{\"type\": \"t\"}"));
    String lease = claim("r1", "acme-2", cap, "").get("assignment").get("leaseId").asText();
    TestProbe<Dispatcher.Command> dispatcher = TestProbe.create(cluster.system());
    ActorRef<Dispatcher.Command> answering =
        cluster
            .system()
            .systemActorOf(
                Behaviors.receiveMessage(
                    message -> {
                      dispatcher.ref().tell(message);
                      if (message instanceof RequestWork request) {
                        request.replyTo().tell(new NoWork());
                      }
                      return Behaviors.same();
                    }),
                "recording-dispatcher",
                Props.empty());
    HttpSettings settings = cluster.settings();
    ApiAuth auth = new ApiAuth(settings);
    ClaimRoutes claims = new ClaimRoutes(answering, cluster.system(), auth, settings, 300);
    LeaseRoutes leases =
        new LeaseRoutes(
            new AgentGateway(cluster.system(), settings.askTimeout()), claims, auth, settings);

    JsonNode done =
        body(
            testRoute(new ApiErrors(settings).handle(() -> leases.route()))
                .run(
                    withToken(
                        jsonRequest(
                            "POST",
                            "/v1/leases/" + lease + "/complete",
                            "{\"runnerId\": \"acme-2\", \"next\": {\"mode\": \"notification\"}}"),
                        "r1"))
                .assertStatusCode(200));

    assertEquals("none", done.get("next").get("status").asText(), done.toString());
    RequestWork asked = dispatcher.expectMessageClass(RequestWork.class);
    assertEquals("acme-2", asked.spec().runnerId());
    assertEquals(Set.of("acme"), asked.spec().tenants());
    assertEquals(RunnerMode.NOTIFICATION, asked.spec().mode());
  }

  @Test
  void scopedAdminsSeeTheirTenantsDeadLettersAndEventsOnly() {
    // A token scoped to a tenant may not use what serves every tenant.
    assertEquals(403, status("acme-admin", "GET", "/admin/stats", null));
    assertEquals(403, status("acme-admin", "POST", "/admin/pause", null));
    int unscoped = status("admin", "GET", "/admin/stats", null);
    assertTrue(unscoped != 401 && unscoped != 403, "an unscoped admin is let in: " + unscoped);
    assertEquals(200, status("acme-admin", "GET", "/admin/dead-letters", null));
    assertEquals(404, status("acme-admin", "GET", "/admin/dead-letters?tenant=beta", null));
    assertEquals(404, status("p1", "GET", "/v1/agents?tenant=beta", null));
    // A dead-letter id of another tenant's agent is not there for a scoped admin.
    String betaDeadLetter = dev.rota.core.model.Ids.deadLetterId("beta/worker", "n1");
    assertEquals(
        404,
        status("acme-admin", "POST", "/admin/dead-letters/" + betaDeadLetter + "/redrive", null));
  }

  private JsonNode claim(String token, String runnerId, String cap, String extra) {
    TestRouteResult result = call(token, "POST", "/v1/claims", claimBody(runnerId, cap, extra));
    assertEquals(200, result.response().status().intValue(), result.entityString());
    return body(result);
  }

  private static String claimBody(String runnerId, String cap, String extra) {
    return "{\"runnerId\": \""
        + runnerId
        + "\", \"mode\": \"notification\", \"capabilities\": [\""
        + cap
        + "\"], \"waitSeconds\": 0"
        + extra
        + "}";
  }

  private static String runner(String runnerId) {
    return "{\"runnerId\": \"" + runnerId + "\"}";
  }

  private static String register(String cap, String name) {
    return "{\"name\": \"" + name + "\", \"capabilities\": [\"" + cap + "\"]}";
  }

  private static List<String> ids(JsonNode list) {
    assertNotNull(list.get("agents"), list.toString());
    List<String> ids = new ArrayList<>();
    list.get("agents").forEach(a -> ids.add(a.get("agentId").asText()));
    return ids;
  }
}
