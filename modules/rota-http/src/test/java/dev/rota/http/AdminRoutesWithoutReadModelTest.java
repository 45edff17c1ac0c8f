package dev.rota.http;

import static dev.rota.http.testing.RouteAssertions.assertError;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import dev.rota.core.model.Ids;
import dev.rota.http.testing.ApiCalls;
import dev.rota.http.testing.JUnit5RouteTest;
import dev.rota.http.testing.RotaTestCluster;
import org.apache.pekko.actor.testkit.typed.javadsl.LogCapturingExtension;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.http.javadsl.model.HttpRequest;
import org.apache.pekko.http.javadsl.testkit.TestRouteResult;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The admin resource on a node started without a read model (in-memory journal): the views that
 * read it answer 503 with Retry-After, while pause, resume, redrive, discard and metrics, which
 * need only the cluster, still work.
 */
@ExtendWith(LogCapturingExtension.class)
class AdminRoutesWithoutReadModelTest extends JUnit5RouteTest {
  private static RotaTestCluster cluster;

  private final ApiCalls api = new ApiCalls(this::run);

  @BeforeAll
  static void startCluster() {
    cluster = RotaTestCluster.inMemory("AdminRoutesWithoutReadModelTest");
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

  @Test
  void answers503WithRetryAfterToTheViewsThatReadTheReadModel() {
    for (String uri : new String[] {"/admin/stats", "/admin/runners", "/admin/dead-letters"}) {
      TestRouteResult result = run(HttpRequest.GET(uri));

      assertError(result, 503, "unavailable", "read model");
      result.assertHeaderExists("Retry-After", "5");
    }
  }

  @Test
  void answers503WithRetryAfterToThePoolsWithoutAPoolScaler() {
    TestRouteResult result = run(HttpRequest.GET("/admin/pools"));

    assertError(result, 503, "unavailable", "pool scaler");
    result.assertHeaderExists("Retry-After", "5");
  }

  @Test
  void stillValidatesTheDeadLetterQueryFirst() {
    assertError(run(HttpRequest.GET("/admin/dead-letters?limit=0")), 400, "invalid", "limit");
  }

  @Test
  void pausesAndResumesWithoutAReadModel() {
    try {
      assertEquals(
          "{\"paused\":true}", api.post("/admin/pause", "").assertStatusCode(200).entityString());
    } finally {
      assertEquals(
          "{\"paused\":false}", api.post("/admin/resume", "").assertStatusCode(200).entityString());
    }
  }

  @Test
  void redrivesADeadLetterWithoutAReadModel() {
    api.register("redrive-a", "redrive");
    String notificationId = api.notify("redrive-a", "mention", "{}");
    String leaseId = api.assignment("runner-redrive", "redrive").get("leaseId").asText();
    api.post(
            "/v1/leases/" + leaseId + "/fail",
            "{\"runnerId\": \"runner-redrive\", \"action\": \"discard\"}")
        .assertStatusCode(200);
    assertEquals(1, api.get("/v1/agents/redrive-a").get("deadLetters").asInt());
    String deadLetterId = Ids.deadLetterId("redrive-a", notificationId);

    api.post("/admin/dead-letters/" + deadLetterId + "/redrive", "").assertStatusCode(200);

    assertEquals(1, api.get("/v1/agents/redrive-a").get("inbox").get("unread").asInt());
  }

  @Test
  void discardsADeadLetterWithoutAReadModel() {
    api.register("discard-a", "discard");
    String notificationId = api.notify("discard-a", "mention", "{}");
    String leaseId = api.assignment("runner-discard", "discard").get("leaseId").asText();
    api.post(
            "/v1/leases/" + leaseId + "/fail",
            "{\"runnerId\": \"runner-discard\", \"action\": \"discard\"}")
        .assertStatusCode(200);
    String deadLetterId = Ids.deadLetterId("discard-a", notificationId);

    run(HttpRequest.DELETE("/admin/dead-letters/" + deadLetterId)).assertStatusCode(204);

    JsonNode agent = api.get("/v1/agents/discard-a");
    assertEquals(0, agent.get("deadLetters").asInt());
    assertEquals(0, agent.get("inbox").get("unread").asInt());
  }

  @Test
  void servesMetricsWithoutAReadModel() {
    run(HttpRequest.GET("/metrics")).assertStatusCode(200);
  }
}
