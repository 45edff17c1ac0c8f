package dev.rota.http;

import static dev.rota.http.testing.RouteAssertions.assertError;
import static dev.rota.http.testing.RouteAssertions.body;
import static dev.rota.http.testing.RouteAssertions.jsonRequest;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.typesafe.config.ConfigFactory;
import dev.rota.cluster.runner.executor.WebhookTargets;
import dev.rota.http.testing.JUnit5RouteTest;
import dev.rota.http.testing.TestCluster;
import java.util.List;
import org.apache.pekko.actor.testkit.typed.javadsl.LogCapturingExtension;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.DispatcherSelector;
import org.apache.pekko.http.javadsl.model.HttpRequest;
import org.apache.pekko.http.javadsl.testkit.TestRouteResult;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@code metadata.webhookUrl} at registration (decision 50): outside {@code
 * rota.runners.http.allowed-targets} it is a 400 naming the field, and the agent is neither created
 * nor changed, so its webhook can never be called.
 */
@ExtendWith(LogCapturingExtension.class)
class WebhookRegistrationTest extends JUnit5RouteTest {
  private static TestCluster cluster;

  @BeforeAll
  static void startCluster() {
    cluster = TestCluster.start("WebhookRegistrationTest");
  }

  @AfterAll
  static void stopCluster() {
    cluster.shutdown();
  }

  @Override
  protected ActorSystem<?> typedSystem() {
    return cluster.system();
  }

  private TestRouteResult put(WebhookTargets targets, String agentId, String json) {
    HttpSettings settings = HttpSettings.from(cluster.config());
    var routes =
        new AgentRoutes(
            new AgentGateway(cluster.system(), settings.askTimeout()),
            cluster.directory(),
            cluster.system().dispatchers().lookup(DispatcherSelector.blocking()),
            new ApiAuth(settings),
            settings,
            targets,
            TenantResolver.defaultOnly());
    return testRoute(new ApiErrors(settings).handle(() -> routes.route()))
        .run(jsonRequest("PUT", "/v1/agents/" + agentId, json));
  }

  private static String webhook(String url) {
    return "{\"metadata\": {\"webhookUrl\": \"" + url + "\"}}";
  }

  private static final WebhookTargets LOCAL = WebhookTargets.of(List.of("127.0.0.1:9000"));

  @Test
  void registersAWebhookInsideTheAllowedTargets() {
    var view =
        body(put(LOCAL, "hook-ok", webhook("http://127.0.0.1:9000/hook")).assertStatusCode(201));

    assertEquals("http://127.0.0.1:9000/hook", view.get("metadata").get("webhookUrl").asText());
  }

  @Test
  void refusesWebhooksOutsideTheAllowedTargetsOrInward() {
    for (String url :
        List.of(
            "http://127.0.0.1:8080/admin/pause",
            "http://169.254.169.254/latest/meta-data/",
            "http://10.0.0.1/",
            "https://hooks.example.com@127.0.0.1:9000/",
            "file:///etc/passwd")) {
      assertError(
          put(LOCAL, "hook-bad", webhook(url)), 400, "invalid", "field 'metadata.webhookUrl'");
    }
    assertError(
        put(LOCAL, "hook-bad", "{\"metadata\": {\"webhookUrl\": 42}}"),
        400,
        "invalid",
        "field 'metadata.webhookUrl' must be a string");
    assertError(
        testRoute(
                new RotaRoutes(
                        cluster.system(), HttpSettings.from(cluster.config()), cluster.directory())
                    .route())
            .run(HttpRequest.GET("/v1/agents/hook-bad")),
        404,
        "not_found",
        "");
  }

  @Test
  void refusesEveryWebhookWhileTheListIsEmpty() {
    var routes =
        new RotaRoutes(cluster.system(), HttpSettings.from(cluster.config()), cluster.directory());

    assertError(
        testRoute(routes.route())
            .run(
                jsonRequest("PUT", "/v1/agents/hook-none", webhook("https://hooks.example.com/x"))),
        400,
        "invalid",
        "rota.runners.http.allowed-targets");
  }

  @Test
  void refusesAPathParameterThatWouldClimbOutOfAnAllowedPrefix() {
    var prefix = WebhookTargets.of(List.of("http://127.0.0.1:9000/rota"));
    put(prefix, "hook-prefix", webhook("http://127.0.0.1:9000/rota/hook")).assertStatusCode(201);

    for (String url :
        List.of(
            "http://127.0.0.1:9000/rota/..;/admin",
            "http://127.0.0.1:9000/rota/..%3b/admin",
            "http://127.0.0.1:9000/rota/hook;x=1")) {
      assertError(
          put(prefix, "hook-dotdot", webhook(url)), 400, "invalid", "field 'metadata.webhookUrl'");
    }
  }

  @Test
  void refusesAWebhookBoundToAnotherTenant() {
    var targets =
        WebhookTargets.from(
            ConfigFactory.parseString(
                """
                rota.runners.http {
                  allowed-targets = ["127.0.0.1"]
                  tenant-targets { globex { allowed-targets = ["127.0.0.1:9100"] } }
                }
                """));

    // This node's requests work in the default tenant: globex's hook is not for its agents, though
    // the shared entry covers every port of 127.0.0.1.
    assertError(
        put(targets, "hook-globex", webhook("http://127.0.0.1:9100/hook")),
        400,
        "invalid",
        "field 'metadata.webhookUrl' is not an allowed webhook target");
    put(targets, "hook-shared", webhook("http://127.0.0.1:9101/hook")).assertStatusCode(201);
  }

  @Test
  void anUpdateCannotAimAnExistingAgentElsewhere() {
    put(LOCAL, "hook-move", webhook("http://127.0.0.1:9000/a")).assertStatusCode(201);

    assertError(
        put(LOCAL, "hook-move", webhook("http://127.0.0.1:9001/a")),
        400,
        "invalid",
        "metadata.webhookUrl");
    var view = body(put(LOCAL, "hook-move", "{}").assertStatusCode(200));
    assertEquals("http://127.0.0.1:9000/a", view.get("metadata").get("webhookUrl").asText());
  }
}
