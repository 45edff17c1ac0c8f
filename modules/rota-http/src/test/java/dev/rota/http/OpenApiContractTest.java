package dev.rota.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.rota.http.testing.OpenApiContract;
import dev.rota.http.testing.OpenApiContract.Answer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.http.javadsl.model.HttpRequest;
import org.apache.pekko.http.javadsl.testkit.TestRouteResult;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * openapi.yaml itself: served as shipped, a well-formed OpenAPI 3.1 document whose references all
 * resolve, and a checker ({@link OpenApiContract}) that does refuse answers the document does not
 * describe — the route tests rely on it to keep the document and the code in step.
 */
class OpenApiContractTest extends dev.rota.http.testing.JUnit5RouteTest {
  private static final ActorTestKit KIT = ActorTestKit.create("OpenApiContractTest");
  private static final OpenApiContract CONTRACT = OpenApiContract.get();
  private static final String AGENT =
      """
      {"agentId":"a1","name":null,"capabilities":[],"priority":0,
       "minActivationIntervalSeconds":0,"maxInboxDepth":100,"maxAttempts":3,"metadata":{},
       "status":"idle","inbox":{"unread":0,"oldestUnreadAt":null},"lastActivatedAt":null,
       "activationCount":0,"deadLetters":0,"lease":null,
       "schedules":[{"name":"daily_standup","cron":"0 9 * * *","timezone":"UTC","payload":{},
                     "nextFireAt":"2026-11-25T09:00:00Z"}],
       "scheduled":{"nextFireAt":"2026-11-25T09:00:00Z","due":false}}
      """;

  @AfterAll
  static void stop() {
    KIT.shutdownTestKit();
  }

  @Override
  protected org.apache.pekko.actor.typed.ActorSystem<?> typedSystem() {
    return KIT.system();
  }

  @Test
  void servesTheShippedDocumentAsYaml() throws Exception {
    TestRouteResult result =
        testRoute(new OpenApiRoutes().route()).run(HttpRequest.GET("/openapi.yaml"));

    result.assertStatusCode(200);
    assertEquals("application/yaml; charset=UTF-8", result.contentType().toString());
    assertEquals(new String(OpenApiRoutes.load(), StandardCharsets.UTF_8), result.entityString());
    JsonNode served = new ObjectMapper(new YAMLFactory()).readTree(result.entityString());
    assertEquals("3.1.0", served.get("openapi").asText());
  }

  @Test
  void everyReferenceResolvesAndEveryOperationIsNamedWithItsErrors() {
    JsonNode document = CONTRACT.document();
    List<String> refs = new ArrayList<>();
    collectRefs(document, refs);
    assertFalse(refs.isEmpty());
    for (String ref : refs) {
      assertTrue(ref.startsWith("#/"), ref);
      assertFalse(document.at(ref.substring(1)).isMissingNode(), "unresolved " + ref);
    }
    List<String> operationIds = new ArrayList<>();
    document
        .get("paths")
        .fields()
        .forEachRemaining(
            path ->
                path.getValue()
                    .fields()
                    .forEachRemaining(
                        op -> {
                          if (op.getKey().equals("parameters")) {
                            return;
                          }
                          JsonNode operation = op.getValue();
                          String where = op.getKey() + " " + path.getKey();
                          assertTrue(operation.has("operationId"), where);
                          operationIds.add(operation.get("operationId").asText());
                          boolean open =
                              operation.has("security") && operation.get("security").isEmpty();
                          if (!open) {
                            assertTrue(operation.get("responses").has("401"), where);
                            assertTrue(operation.get("responses").has("default"), where);
                          }
                        }));
    assertEquals(operationIds.size(), operationIds.stream().distinct().count(), "duplicate ids");
    assertTrue(operationIds.size() >= 24, operationIds.toString());
  }

  @Test
  void acceptsAConformingAnswer() {
    assertEquals(List.of(), CONTRACT.problems(json("GET", "/v1/agents/a1", 200, AGENT, Map.of())));
    assertEquals(
        List.of(),
        CONTRACT.problems(
            json(
                "GET",
                "/v1/agents/a1",
                404,
                "{\"error\":\"not_found\",\"message\":\"no\"}",
                Map.of())));
  }

  @Test
  void refusesAWrongTypeAMissingFieldAndAnUnknownErrorField() {
    assertFalse(
        CONTRACT
            .problems(json("GET", "/v1/agents/a1", 200, AGENT.replace("\"a1\"", "1"), Map.of()))
            .isEmpty());
    assertFalse(
        CONTRACT
            .problems(
                json(
                    "GET",
                    "/v1/agents/a1",
                    200,
                    AGENT.replace("\"status\":\"idle\",", ""),
                    Map.of()))
            .isEmpty());
    assertFalse(
        CONTRACT
            .problems(
                json(
                    "GET",
                    "/v1/agents/a1",
                    404,
                    "{\"error\":\"not_found\",\"message\":\"no\",\"stack\":\"x\"}",
                    Map.of()))
            .isEmpty());
    assertFalse(
        CONTRACT
            .problems(
                json(
                    "GET",
                    "/v1/agents/a1",
                    404,
                    "{\"error\":\"vanished\",\"message\":\"no\"}",
                    Map.of()))
            .isEmpty());
  }

  @Test
  void refusesUndocumentedPathsStatusesMediaTypesAndMissingRetryAfter() {
    assertFalse(CONTRACT.problems(json("GET", "/v2/agents", 200, "{}", Map.of())).isEmpty());
    assertFalse(
        CONTRACT
            .problems(json("GET", "/admin/stats", 200, "{\"paused\":false}", Map.of()))
            .isEmpty());
    assertFalse(
        CONTRACT
            .problems(new Answer("GET", "/v1/agents/a1", 200, "text/plain", Map.of(), "hello"))
            .isEmpty());
    String unavailable = "{\"error\":\"unavailable\",\"message\":\"later\"}";
    assertFalse(
        CONTRACT.problems(json("GET", "/admin/stats", 503, unavailable, Map.of())).isEmpty());
    assertEquals(
        List.of(),
        CONTRACT.problems(
            json("GET", "/admin/stats", 503, unavailable, Map.of("retry-after", "5"))));
    assertFalse(
        CONTRACT
            .problems(
                json(
                    "PATCH",
                    "/v1/agents/a1",
                    405,
                    "{\"error\":\"method_not_allowed\",\"message\":\"x\"}",
                    Map.of()))
            .isEmpty(),
        "405 without Allow");
  }

  private static Answer json(
      String method, String path, int status, String body, Map<String, String> headers) {
    return new Answer(method, path, status, "application/json", headers, body);
  }

  private static void collectRefs(JsonNode node, List<String> refs) {
    if (node.isObject()) {
      node.fields()
          .forEachRemaining(
              e -> {
                if (e.getKey().equals("$ref")) {
                  refs.add(e.getValue().asText());
                } else {
                  collectRefs(e.getValue(), refs);
                }
              });
    } else if (node.isArray()) {
      node.forEach(n -> collectRefs(n, refs));
    }
  }
}
