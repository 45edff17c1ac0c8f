package dev.rota.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.rota.http.testing.ApiCalls;
import dev.rota.http.testing.JUnit5RouteTest;
import dev.rota.http.testing.RotaTestCluster;
import java.time.Duration;
import java.time.Instant;
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
 * Explain names the agent's tenant's caps: the default tenant capped at one lease at once and two
 * grants a minute. A second agent is blocked by {@code tenant_cap} while the first holds its lease,
 * and by {@code tenant_rate}, with when the minute has room, after two grants; claims are answered
 * {@code none} meanwhile.
 */
@ExtendWith(LogCapturingExtension.class)
class ExplainTenantCapsTest extends JUnit5RouteTest {
  private static RotaTestCluster cluster;

  private final ApiCalls api = new ApiCalls(this::run);

  @BeforeAll
  static void startCluster() {
    cluster =
        RotaTestCluster.withDatabase(
            "ExplainTenantCapsTest",
            "rota.tenants { default { max-concurrent = 1, max-activations-per-minute = 2 } }");
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

  private JsonNode assignment(String capability) {
    return TestProbe.create(cluster.system())
        .awaitAssert(Duration.ofSeconds(15), () -> api.assignment("caps-runner", capability));
  }

  private void complete(JsonNode assignment) {
    TestRouteResult done =
        api.post(
            "/v1/leases/" + assignment.get("leaseId").asText() + "/complete",
            "{\"runnerId\": \"caps-runner\", \"result\": {}}");
    assertEquals(200, done.statusCode(), done.entityString());
  }

  @Test
  void aTenantAtItsCapAndAtItsRateIsWhyAnAgentIsNotPicked() {
    api.register("caps-a", "cap-caps");
    api.register("caps-b", "cap-caps");
    api.notify("caps-a", "m", "{}");
    api.notify("caps-b", "m", "{}");

    JsonNode first = assignment("cap-caps");
    String other = first.get("agentId").asText().equals("caps-a") ? "caps-b" : "caps-a";
    JsonNode blocked = explain(other);
    assertEquals(List.of("tenant_cap"), reasons(blocked), blocked.toString());
    assertTrue(blocked.at("/blockedBy/0/until").isNull(), blocked.toString());
    assertFalse(blocked.get("eligible").asBoolean());
    assertEquals("none", api.claim("caps-runner", "cap-caps").get("status").asText());

    complete(first);
    JsonNode second = assignment("cap-caps");
    assertEquals(other, second.get("agentId").asText());
    complete(second);

    // Two grants this minute: the cap of leases has room, the rate has none until a minute after
    // the first grant.
    api.notify("caps-a", "m", "{}");
    JsonNode rated = explain("caps-a");
    assertEquals(List.of("tenant_rate"), reasons(rated), rated.toString());
    Instant until = Instant.parse(rated.at("/blockedBy/0/until").asText());
    assertTrue(until.isAfter(Instant.now()), rated.toString());
    assertTrue(until.isBefore(Instant.now().plusSeconds(61)), rated.toString());
    assertEquals("none", api.claim("caps-runner", "cap-caps").get("status").asText());
  }
}
