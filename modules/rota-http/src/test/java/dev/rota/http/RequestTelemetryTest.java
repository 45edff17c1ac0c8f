package dev.rota.http;

import static dev.rota.http.testing.RouteAssertions.assertError;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import dev.rota.cluster.metrics.RotaMetrics;
import dev.rota.http.testing.JUnit5RouteTest;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.http.javadsl.model.HttpRequest;
import org.apache.pekko.http.javadsl.model.StatusCodes;
import org.apache.pekko.http.javadsl.model.headers.RawHeader;
import org.apache.pekko.http.javadsl.server.Route;
import org.apache.pekko.http.javadsl.testkit.TestRouteResult;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/** Correlation ids, error bodies that carry them, and request metrics by route template. */
class RequestTelemetryTest extends JUnit5RouteTest {
  private static final ActorTestKit KIT = ActorTestKit.create("RequestTelemetryTest");

  @AfterAll
  static void stop() {
    KIT.shutdownTestKit();
  }

  @Override
  protected ActorSystem<?> typedSystem() {
    return KIT.system();
  }

  private Route routes() {
    RequestTelemetry telemetry = new RequestTelemetry(RotaMetrics.get(KIT.system()));
    ApiErrors errors = new ApiErrors(HttpSettings.from(ConfigFactory.load()));
    return telemetry.wrap(
        () ->
            errors.handle(
                () ->
                    concat(
                        path(
                            segment("v1").slash("agents").slash(segment()),
                            id -> {
                              throw ApiException.notFound("no agent " + id);
                            }),
                        path(
                            segment("admin").slash("pause"),
                            () ->
                                post(
                                    () ->
                                        complete(
                                            JsonSupport.response(
                                                StatusCodes.OK,
                                                new dev.rota.http.api.PauseView(true))))))));
  }

  private static org.apache.pekko.http.javadsl.server.PathMatcher0 segment(String name) {
    return org.apache.pekko.http.javadsl.server.PathMatchers.segment(name);
  }

  private static org.apache.pekko.http.javadsl.server.PathMatcher1<String> segment() {
    return org.apache.pekko.http.javadsl.server.PathMatchers.segment();
  }

  @Test
  void anErrorCarriesTheCorrelationIdTheClientSent() {
    TestRouteResult result =
        testRoute(routes())
            .run(
                HttpRequest.GET("/v1/agents/nobody")
                    .addHeader(RawHeader.create("X-Correlation-Id", "trace-42")));

    assertError(result, 404, "not_found", "nobody");
    result.assertHeaderExists("X-Correlation-Id", "trace-42");
    assertEquals(
        "trace-42",
        dev.rota.http.testing.RouteAssertions.body(result).get("correlationId").asText());
  }

  @Test
  void aMissingOrInsaneIdIsReplacedByAFreshOneAndSuccessBodiesStayAsTheyAre() {
    TestRouteResult fresh = testRoute(routes()).run(HttpRequest.GET("/v1/agents/nobody"));
    TestRouteResult insane =
        testRoute(routes())
            .run(
                HttpRequest.GET("/v1/agents/nobody")
                    .addHeader(RawHeader.create("X-Correlation-Id", "a b\u0001")));
    TestRouteResult ok = testRoute(routes()).run(HttpRequest.POST("/admin/pause"));

    String id = assertError(fresh, 404, "not_found", "nobody").get("correlationId").asText();
    assertTrue(id.matches("[0-9a-f]{16}"), id);
    String other = assertError(insane, 404, "not_found", "nobody").get("correlationId").asText();
    assertTrue(other.matches("[0-9a-f]{16}"), other);
    ok.assertStatusCode(200);
    ok.assertEntity("{\"paused\":true}");
    assertTrue(ok.response().getHeader("X-Correlation-Id").isPresent());
  }

  @Test
  void countsRequestsByRouteTemplateAndStatus() {
    testRoute(routes()).run(HttpRequest.GET("/v1/agents/counted-1"));
    testRoute(routes()).run(HttpRequest.GET("/v1/agents/counted-2"));

    String scrape = RotaMetrics.get(KIT.system()).registry().scrape();
    assertTrue(
        scrape.contains(
            "rota_http_requests_seconds_count{method=\"GET\",route=\"/v1/agents/{agentId}\",status=\"404\"}"),
        scrape);
    assertTrue(!scrape.contains("counted-1"), "a raw path became a label");
  }

  @Test
  void logsLeasePathsWithoutTheLeaseId() {
    assertEquals(
        "/v1/leases/{redacted}/heartbeat",
        RequestTelemetry.loggable("/v1/leases/YTE.7-0123abcd/heartbeat"));
    assertEquals("/v1/leases/{redacted}", RequestTelemetry.loggable("/v1/leases/YTE.7-0123abcd"));
    assertEquals("/v1/agents/a1/history", RequestTelemetry.loggable("/v1/agents/a1/history"));
    assertEquals("/v1/leases", RequestTelemetry.loggable("/v1/leases"));
    assertEquals(
        "Illegal request-target: /v1/leases/{redacted}/complete?x=%zz",
        RequestTelemetry.loggable("Illegal request-target: /v1/leases/YTE.7-0ab/complete?x=%zz"));
  }

  @Test
  void mapsPathsToTheTemplatesOfTheDocument() {
    RequestTelemetry telemetry = new RequestTelemetry(RotaMetrics.get(KIT.system()));

    assertEquals("/v1/agents", telemetry.route("/v1/agents"));
    assertEquals("/v1/agents/{agentId}/pause", telemetry.route("/v1/agents/a1/pause"));
    assertEquals("/admin/pause", telemetry.route("/admin/pause"));
    assertEquals(
        "/admin/dead-letters/{id}/redrive", telemetry.route("/admin/dead-letters/x/redrive"));
    assertEquals("/admin/dead-letters/{id}", telemetry.route("/admin/dead-letters/x"));
    assertEquals("/", telemetry.route("/"));
    assertEquals("other", telemetry.route("/wp-admin/login.php"));
  }
}
