package dev.rota.http.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.ArrayList;
import java.util.List;
import org.apache.pekko.http.javadsl.model.ContentTypes;
import org.apache.pekko.http.javadsl.model.HttpMethods;
import org.apache.pekko.http.javadsl.model.HttpRequest;
import org.apache.pekko.http.javadsl.testkit.TestRouteResult;

/** Requests and assertions the route tests share: JSON bodies and the API's error shape. */
public final class RouteAssertions {
  private static final ObjectMapper MAPPER = new ObjectMapper();

  private RouteAssertions() {}

  public static HttpRequest jsonRequest(String method, String uri, String json) {
    return HttpRequest.create(uri)
        .withMethod(HttpMethods.lookup(method).orElseThrow())
        .withEntity(ContentTypes.APPLICATION_JSON, json);
  }

  public static JsonNode body(TestRouteResult result) {
    try {
      return MAPPER.readTree(result.entityString());
    } catch (JsonProcessingException e) {
      throw new AssertionError("not JSON: " + result.entityString(), e);
    }
  }

  public static List<String> fieldNames(JsonNode node) {
    List<String> names = new ArrayList<>();
    node.fieldNames().forEachRemaining(names::add);
    return names;
  }

  /**
   * Asserts an error body of docs/api.md: status, {@code {"error", "message"}} and nothing else but
   * the optional {@code correlationId} (the answer's {@code X-Correlation-Id}), a message naming
   * what is wrong, and no stack trace.
   */
  public static JsonNode assertError(
      TestRouteResult result, int status, String code, String messageContains) {
    assertEquals(status, result.statusCode(), result.entityString());
    assertEquals(ContentTypes.APPLICATION_JSON, result.contentType());
    JsonNode body = body(result);
    if (body.has("correlationId")) {
      assertEquals(List.of("error", "message", "correlationId"), fieldNames(body));
      assertEquals(
          result.response().getHeader("X-Correlation-Id").map(h -> h.value()).orElse(null),
          body.get("correlationId").asText());
    } else {
      assertEquals(List.of("error", "message"), fieldNames(body));
    }
    assertEquals(code, body.get("error").asText());
    String message = body.get("message").asText();
    assertTrue(
        message.contains(messageContains),
        "message '" + message + "' should contain '" + messageContains + "'");
    assertFalse(message.contains("Exception") || message.contains("\tat "), message);
    return body;
  }
}
