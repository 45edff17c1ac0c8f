package dev.rota.http;

import static dev.rota.http.testing.RouteAssertions.assertError;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import com.typesafe.config.ConfigFactory;
import dev.rota.http.testing.JUnit5RouteTest;
import dev.rota.http.testing.TestCluster;
import java.time.Duration;
import java.util.Optional;
import org.apache.pekko.actor.Address;
import org.apache.pekko.actor.testkit.typed.javadsl.LogCapturingExtension;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.http.javadsl.model.HttpRequest;
import org.apache.pekko.http.javadsl.testkit.TestRouteResult;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A request for an agent whose node is unreachable (decision 105) is answered 503 at once, and the
 * answer does not name the node's cluster address: that is the network's layout, for operators.
 */
@ExtendWith(LogCapturingExtension.class)
class UnreachableAgentRoutesTest extends JUnit5RouteTest {
  private static final Address HOME = new Address("pekko", "rota", "10.23.4.5", 25520);
  private static TestCluster cluster;

  @BeforeAll
  static void startCluster() {
    cluster = TestCluster.start("UnreachableAgentRoutesTest");
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
    var gateway =
        new AgentGateway(
            cluster.system(),
            Duration.ofSeconds(5),
            agentId -> agentId.endsWith("on-lost-node") ? Optional.of(HOME) : Optional.empty());
    var settings = HttpSettings.from(ConfigFactory.empty().withFallback(cluster.config()));
    return testRoute(
            new RotaRoutes(cluster.system(), settings, gateway, cluster.directory()).route())
        .run(request);
  }

  @Test
  void theAnswerForAnAgentOnAnUnreachableNodeDoesNotNameTheNodesAddress() {
    TestRouteResult answer = run(HttpRequest.GET("/v1/agents/on-lost-node"));

    assertError(answer, 503, "unavailable", "unreachable");
    assertEquals("1", answer.response().getHeader("Retry-After").orElseThrow().value());
    String body = answer.entityString();
    for (String part : new String[] {"10.23.4.5", "25520", "pekko://"}) {
      assertFalse(body.contains(part), "the answer names the node: " + body);
    }
  }
}
