package dev.rota.http.testing;

import static dev.rota.http.testing.RouteAssertions.body;
import static dev.rota.http.testing.RouteAssertions.jsonRequest;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.function.Function;
import org.apache.pekko.http.javadsl.model.HttpRequest;
import org.apache.pekko.http.javadsl.model.headers.Authorization;
import org.apache.pekko.http.javadsl.model.headers.HttpCredentials;
import org.apache.pekko.http.javadsl.testkit.TestRouteResult;

/**
 * The calls route tests make over and over, through the whole API as a client would: register an
 * agent that requires one capability (so that a test's runners, offering only that capability,
 * never see another test's agents), notify it, claim, report on leases.
 */
public final class ApiCalls {
  private final Function<HttpRequest, TestRouteResult> run;

  /**
   * @param run runs a request through the routes under test
   */
  public ApiCalls(Function<HttpRequest, TestRouteResult> run) {
    this.run = run;
  }

  public TestRouteResult run(HttpRequest request) {
    return run.apply(request);
  }

  public TestRouteResult post(String uri, String json) {
    return run(jsonRequest("POST", uri, json));
  }

  public JsonNode get(String uri) {
    return body(run(HttpRequest.GET(uri)).assertStatusCode(200));
  }

  /** Registers an agent requiring {@code capability}. */
  public void register(String agentId, String capability) {
    run(jsonRequest("PUT", "/v1/agents/" + agentId, "{\"capabilities\": [\"" + capability + "\"]}"))
        .assertStatusCode(201);
  }

  /** Sends a notification; returns its id. */
  public String notify(String agentId, String type, String payloadJson) {
    TestRouteResult result =
        post(
            "/v1/agents/" + agentId + "/notifications",
            "{\"type\": \"" + type + "\", \"payload\": " + payloadJson + "}");
    return body(result.assertStatusCode(202)).get("notificationId").asText();
  }

  /** A claim that must be answered 200; the whole answer. */
  public JsonNode claim(String json) {
    TestRouteResult result = post("/v1/claims", json);
    assertEquals(200, result.statusCode(), result.entityString());
    return body(result);
  }

  /** An immediate claim by a hybrid runner offering only {@code capability}. */
  public JsonNode claim(String runnerId, String capability) {
    return claim(
        "{\"runnerId\": \"" + runnerId + "\", \"capabilities\": [\"" + capability + "\"]}");
  }

  /** The assignment of a claim that must be assigned. */
  public JsonNode assignment(String runnerId, String capability) {
    JsonNode answer = claim(runnerId, capability);
    assertEquals("assigned", answer.get("status").asText(), answer.toString());
    return answer.get("assignment");
  }

  public static HttpRequest withToken(HttpRequest request, String token) {
    return request.addHeader(Authorization.create(HttpCredentials.createOAuth2BearerToken(token)));
  }
}
