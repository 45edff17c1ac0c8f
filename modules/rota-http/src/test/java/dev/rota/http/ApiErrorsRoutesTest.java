package dev.rota.http;

import static dev.rota.http.testing.RouteAssertions.assertError;
import static dev.rota.http.testing.RouteAssertions.jsonRequest;
import static java.net.http.HttpResponse.BodyHandlers.ofString;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import dev.rota.http.testing.JUnit5RouteTest;
import dev.rota.http.testing.TestCluster;
import java.net.URI;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.testkit.typed.javadsl.LogCapturingExtension;
import org.apache.pekko.actor.testkit.typed.javadsl.LoggingTestKit;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.http.javadsl.Http;
import org.apache.pekko.http.javadsl.ServerBinding;
import org.apache.pekko.http.javadsl.model.ContentTypes;
import org.apache.pekko.http.javadsl.model.HttpEntities;
import org.apache.pekko.http.javadsl.model.HttpMethods;
import org.apache.pekko.http.javadsl.model.HttpRequest;
import org.apache.pekko.http.javadsl.model.MediaRanges;
import org.apache.pekko.http.javadsl.model.MediaTypes;
import org.apache.pekko.http.javadsl.model.headers.Accept;
import org.apache.pekko.http.javadsl.model.headers.Authorization;
import org.apache.pekko.http.javadsl.model.headers.HttpCredentials;
import org.apache.pekko.http.javadsl.settings.ServerSettings;
import org.apache.pekko.http.javadsl.testkit.TestRouteResult;
import org.apache.pekko.stream.javadsl.Source;
import org.apache.pekko.util.ByteString;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Every error answer of the agent API, all in docs/api.md's {@code {"error", "message"}} shape:
 * validation (400), auth (401/403), unknown path (404), wrong method (405), body limit (413), a
 * cluster that does not answer (503) and an unexpected failure (500 without details).
 */
@ExtendWith(LogCapturingExtension.class)
class ApiErrorsRoutesTest extends JUnit5RouteTest {
  private static TestCluster cluster;

  @BeforeAll
  static void startCluster() {
    cluster = TestCluster.start("ApiErrorsRoutesTest");
  }

  @AfterAll
  static void stopCluster() {
    cluster.shutdown();
  }

  @Override
  protected ActorSystem<?> typedSystem() {
    return cluster.system();
  }

  private HttpSettings settings(String overrides) {
    return HttpSettings.from(ConfigFactory.parseString(overrides).withFallback(cluster.config()));
  }

  private TestRouteResult run(HttpRequest request) {
    return run(new RotaRoutes(cluster.system(), settings(""), cluster.directory()), request);
  }

  private TestRouteResult run(RotaRoutes routes, HttpRequest request) {
    return testRoute(routes.route()).run(request);
  }

  private TestRouteResult put(String agentId, String json) {
    return run(jsonRequest("PUT", "/v1/agents/" + agentId, json));
  }

  @Test
  void rejectsMalformedAgentIdsWith400() {
    assertError(put("bad!id", "{}"), 400, "invalid", "agentId");
    assertError(put("a%20b", "{}"), 400, "invalid", "agentId");
    assertError(run(HttpRequest.GET("/v1/agents/" + "x".repeat(129))), 400, "invalid", "agentId");
  }

  @Test
  void rejectsUnknownFieldWith400NamingItAndRegistersNothing() {
    assertError(put("val-typo", "{\"nmae\": \"x\"}"), 400, "invalid", "'nmae'");

    assertError(run(HttpRequest.GET("/v1/agents/val-typo")), 404, "not_found", "val-typo");
  }

  @Test
  void rejectsWrongTypesWith400NamingTheField() {
    assertError(put("val-type", "{\"priority\": \"high\"}"), 400, "invalid", "'priority'");
    assertError(
        put("val-type", "{\"capabilities\": [\"a\", 1]}"), 400, "invalid", "capabilities[1]");
    assertError(put("val-type", "{\"name\": 7}"), 400, "invalid", "'name'");
  }

  @Test
  void rejectsMalformedJsonWith400() {
    assertError(put("val-json", "{\"name\": "), 400, "invalid", "not valid JSON");
    assertError(put("val-json", "[1, 2]"), 400, "invalid", "JSON object");
  }

  @ParameterizedTest(name = "{0} → names {1}")
  @CsvSource(
      delimiter = '|',
      value = {
        "{\"maxInboxDepth\": 0}                 | maxInboxDepth",
        "{\"maxInboxDepth\": 100001}            | maxInboxDepth",
        "{\"maxAttempts\": 0}                   | maxAttempts",
        "{\"maxAttempts\": 101}                 | maxAttempts",
        "{\"minActivationIntervalSeconds\": -1} | minActivationIntervalSeconds",
        "{\"priority\": 2147483648}             | priority",
        "{\"capabilities\": [\" \"]}            | capabilities[0]",
        "{\"capabilities\": [\"a\", null]}      | capabilities[1]",
        "{\"metadata\": [\"not\", \"object\"]}  | metadata",
        "{\"name\": \"  \"}                     | name",
      })
  void rejectsOutOfRangeValuesWith400NamingTheField(String json, String field) {
    assertError(put("val-range", json), 400, "invalid", field);
  }

  @Test
  void acceptsPrioritiesWithinTheirRangeAndRefusesOthers() {
    assertError(put("val-prio", "{\"priority\": -2147483648}"), 400, "invalid", "priority");
    assertError(put("val-prio", "{\"priority\": 1001}"), 400, "invalid", "priority");
    put("val-prio", "{\"priority\": -1000}").assertStatusCode(201);
  }

  @Test
  void rejectsNotificationsWithoutValidTypeWith400() {
    put("val-note", "{}").assertStatusCode(201);
    String uri = "/v1/agents/val-note/notifications";

    assertError(run(jsonRequest("POST", uri, "{}")), 400, "invalid", "type");
    assertError(run(jsonRequest("POST", uri, "")), 400, "invalid", "type");
    assertError(run(jsonRequest("POST", uri, "{\"type\": \" \"}")), 400, "invalid", "type");
    assertError(run(jsonRequest("POST", uri, "{\"type\": 5}")), 400, "invalid", "'type'");
    assertError(
        run(jsonRequest("POST", uri, "{\"type\": \"a\", \"dedupeKey\": 5}")),
        400,
        "invalid",
        "'dedupeKey'");
    assertError(
        run(jsonRequest("POST", uri, "{\"type\": \"a\", \"priority\": 1}")),
        400,
        "invalid",
        "'priority'");
  }

  @Test
  void rejectsBadListingAndHistoryParametersWith400() {
    assertError(run(HttpRequest.GET("/v1/agents?order=oldest")), 400, "invalid", "order");
    assertError(run(HttpRequest.GET("/v1/agents?limit=0")), 400, "invalid", "limit");
    assertError(run(HttpRequest.GET("/v1/agents?limit=1001")), 400, "invalid", "limit");
    assertError(run(HttpRequest.GET("/v1/agents?limit=ten")), 400, "invalid", "limit");
    assertError(run(HttpRequest.GET("/v1/agents?after=nonsense")), 400, "invalid", "after");
    assertError(run(HttpRequest.GET("/v1/agents/h/history?limit=-1")), 400, "invalid", "limit");
  }

  @Test
  void answers413WhenTheBodyIsOverTheLimit() {
    String payload = "{\"type\": \"big\", \"payload\": \"" + "x".repeat(70_000) + "\"}";

    TestRouteResult result = run(jsonRequest("POST", "/v1/agents/big-a/notifications", payload));

    assertError(result, 413, "too_large", "65536");
  }

  @Test
  void answers413ForAStreamedBodyOverTheLimit() {
    Source<ByteString, ?> chunks =
        Source.range(1, 20).map(i -> ByteString.fromString("x".repeat(10_000)));
    HttpRequest request =
        HttpRequest.PUT("/v1/agents/big-b")
            .withEntity(HttpEntities.create(ContentTypes.APPLICATION_JSON, chunks));

    assertError(run(request), 413, "too_large", "65536");
  }

  @Test
  void answersTheSameOverARealConnection() throws Exception {
    ServerBinding binding =
        Http.get(cluster.system())
            .newServerAt("127.0.0.1", 0)
            .bind(new RotaRoutes(cluster.system(), settings(""), cluster.directory()).route())
            .toCompletableFuture()
            .get(10, TimeUnit.SECONDS);
    try {
      HttpClient client = HttpClient.newHttpClient();
      String base = "http://127.0.0.1:" + binding.localAddress().getPort();
      String big = "{\"type\": \"big\", \"payload\": \"" + "x".repeat(70_000) + "\"}";

      var created =
          client.send(socketRequest(base + "/v1/agents/socket-a", "PUT", "{}"), ofString());
      var tooLarge =
          client.send(
              socketRequest(base + "/v1/agents/socket-a/notifications", "POST", big), ofString());
      var unknown = client.send(socketRequest(base + "/nope", "GET", ""), ofString());

      assertEquals(201, created.statusCode(), created.body());
      assertEquals(413, tooLarge.statusCode(), tooLarge.body());
      assertTrue(tooLarge.body().contains("\"too_large\""), tooLarge.body());
      assertEquals(404, unknown.statusCode());
      assertEquals("application/json", unknown.headers().firstValue("Content-Type").orElse(""));
    } finally {
      binding.unbind().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }
  }

  @Test
  void answers503AsJsonWhenTheServerTimesTheRequestOut() throws Exception {
    AgentDirectory slow =
        (tenant, order, limit, after) -> {
          try {
            Thread.sleep(2_000); // a directory slower than the server's request timeout
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
          return new AgentDirectory.AgentPage(java.util.List.of(), null);
        };
    ServerSettings serverSettings =
        ServerSettings.create(
            ConfigFactory.parseString("pekko.http.server.request-timeout = 300ms")
                .withFallback(cluster.config()));
    ServerBinding binding =
        Http.get(cluster.system())
            .newServerAt("127.0.0.1", 0)
            .withSettings(serverSettings)
            .bind(new RotaRoutes(cluster.system(), settings(""), slow).route())
            .toCompletableFuture()
            .get(10, TimeUnit.SECONDS);
    try {
      String uri = "http://127.0.0.1:" + binding.localAddress().getPort() + "/v1/agents";

      var response = HttpClient.newHttpClient().send(socketRequest(uri, "GET", ""), ofString());

      assertEquals(503, response.statusCode(), response.body());
      assertTrue(response.body().contains("\"unavailable\""), response.body());
      assertEquals("5", response.headers().firstValue("Retry-After").orElse(""));
    } finally {
      binding.unbind().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }
  }

  private static java.net.http.HttpRequest socketRequest(String uri, String method, String body) {
    return java.net.http.HttpRequest.newBuilder(URI.create(uri))
        .method(method, java.net.http.HttpRequest.BodyPublishers.ofString(body))
        .header("Content-Type", "application/json")
        .build();
  }

  @Test
  void answers404JsonForUnknownPaths() {
    assertError(run(HttpRequest.GET("/nope")), 404, "not_found", "/nope");
    assertError(run(HttpRequest.GET("/v1/agents/a1/nope")), 404, "not_found", "/v1/agents/a1/nope");
  }

  @Test
  void answers405JsonWithAllowForWrongMethods() {
    TestRouteResult patch = run(HttpRequest.create("/v1/agents/a1").withMethod(HttpMethods.PATCH));
    TestRouteResult getNotifications = run(HttpRequest.GET("/v1/agents/a1/notifications"));

    assertError(patch, 405, "method_not_allowed", "PATCH");
    patch.assertHeaderExists("Allow", "PUT, GET, DELETE");
    assertError(getNotifications, 405, "method_not_allowed", "POST");
    getNotifications.assertHeaderExists("Allow", "POST");
  }

  private RotaRoutes secured() {
    return new RotaRoutes(
        cluster.system(),
        settings(
            """
            rota.http.tokens = [
              { token = "producer-token", roles = [producer] }
              { token = "runner-token", roles = [runner] }
              { token = "admin-token", roles = [admin] }
            ]
            """),
        cluster.directory());
  }

  private static HttpRequest withToken(HttpRequest request, String token) {
    return request.addHeader(Authorization.create(HttpCredentials.createOAuth2BearerToken(token)));
  }

  @Test
  void answers401WithoutAValidTokenWhenTokensAreConfigured() {
    HttpRequest get = HttpRequest.GET("/v1/agents/auth-a");

    TestRouteResult none = run(secured(), get);
    TestRouteResult unknown = run(secured(), withToken(get, "guess"));
    TestRouteResult basic =
        run(secured(), get.addHeader(Authorization.basic("producer-token", "")));

    assertError(none, 401, "unauthenticated", "Bearer");
    none.assertHeaderExists("WWW-Authenticate", "Bearer realm=\"rota\"");
    assertError(unknown, 401, "unauthenticated", "Bearer");
    assertError(basic, 401, "unauthenticated", "Bearer");
  }

  @Test
  void answers403ForATokenWithoutTheProducerRole() {
    TestRouteResult result =
        run(secured(), withToken(jsonRequest("PUT", "/v1/agents/auth-b", "{}"), "runner-token"));

    assertError(result, 403, "forbidden", "producer");
  }

  @Test
  void allowsProducerAndAdminTokens() {
    run(secured(), withToken(jsonRequest("PUT", "/v1/agents/auth-c", "{}"), "producer-token"))
        .assertStatusCode(201);
    run(secured(), withToken(HttpRequest.GET("/v1/agents/auth-c"), "admin-token"))
        .assertStatusCode(200);
  }

  private RotaRoutes silent() {
    Duration timeout = Duration.ofMillis(300);
    return new RotaRoutes(
        cluster.system(),
        settings("rota.http.ask-timeout = 300ms"),
        new AgentGateway(cluster.system(), TestCluster.SILENT, timeout),
        cluster.directory());
  }

  @Test
  void answers503WithRetryAfterWhenTheAgentDoesNotAnswerInTime() {
    for (HttpRequest request :
        new HttpRequest[] {
          HttpRequest.GET("/v1/agents/silent-a"),
          jsonRequest("PUT", "/v1/agents/silent-a", "{}"),
          jsonRequest("POST", "/v1/agents/silent-a/notifications", "{\"type\": \"a\"}")
        }) {
      TestRouteResult result = run(silent(), request);

      assertError(result, 503, "unavailable", "did not answer within 300 ms");
      result.assertHeaderExists("Retry-After", "5");
    }
  }

  @Test
  void answers503WhenTheDirectoryIsUnavailable() {
    AgentDirectory down =
        (tenant, order, limit, after) -> {
          throw new AgentDirectory.UnavailableException("no database", null);
        };
    RotaRoutes routes = new RotaRoutes(cluster.system(), settings(""), down);

    TestRouteResult result = run(routes, HttpRequest.GET("/v1/agents"));

    assertError(result, 503, "unavailable", "directory");
    result.assertHeaderKindExists("Retry-After");
  }

  @Test
  void answers500WithoutDetailsForUnexpectedFailuresAndLogsThem() {
    AgentDirectory broken =
        (tenant, order, limit, after) -> {
          throw new IllegalStateException("secret internals");
        };
    RotaRoutes routes = new RotaRoutes(cluster.system(), settings(""), broken);

    TestRouteResult result =
        LoggingTestKit.error(IllegalStateException.class)
            .expect(cluster.system(), () -> run(routes, HttpRequest.GET("/v1/agents")));

    assertFalse(assertError(result, 500, "internal", "logged").toString().contains("secret"));
  }

  @Test
  void answersErrorsAsJsonEvenWhenTheClientAcceptsOnlyText() {
    HttpRequest request =
        HttpRequest.GET("/v1/agents/nobody-at-all")
            .addHeader(Accept.create(MediaRanges.create(MediaTypes.TEXT_PLAIN)));

    assertError(run(request), 404, "not_found", "nobody-at-all");
  }
}
