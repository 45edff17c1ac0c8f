package dev.rota.server.fuzz;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.rota.server.testing.RawHttp.Response;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * What every answer of the API must be, for any request (docs/api.md): a 5xx only as the documented
 * 503 {@code unavailable} with {@code Retry-After}; every error a JSON body {@code {"error",
 * "message"}} whose code fits its status; 405 with {@code Allow}; 429 with {@code Retry-After};
 * every JSON success parseable. Pure, so it is tested on answers made by hand.
 */
public final class FuzzOracle {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** The codes of docs/api.md by status. */
  private static final Map<Integer, Set<String>> CODES =
      Map.ofEntries(
          Map.entry(400, Set.of("invalid")),
          Map.entry(401, Set.of("unauthenticated")),
          Map.entry(403, Set.of("forbidden")),
          Map.entry(404, Set.of("not_found")),
          Map.entry(405, Set.of("method_not_allowed")),
          Map.entry(409, Set.of("conflict", "lease_not_held")),
          Map.entry(410, Set.of("lease_lost")),
          Map.entry(413, Set.of("too_large")),
          Map.entry(415, Set.of("unsupported_media_type")),
          Map.entry(414, Set.of("too_large")),
          Map.entry(431, Set.of("too_large")),
          Map.entry(429, Set.of("inbox_full")),
          Map.entry(503, Set.of("unavailable")));

  private FuzzOracle() {}

  /** What is wrong with this answer, or empty when it keeps the contract. */
  public static Optional<String> problem(Response response) {
    return problem("GET", response);
  }

  /**
   * What is wrong with this answer to a request with this method. An answer to HEAD has no body
   * (RFC 9110), so only its status and headers are judged.
   */
  public static Optional<String> problem(String method, Response response) {
    int status = response.status();
    if ("HEAD".equals(method)) {
      return headProblem(response);
    }
    if (status >= 400) {
      return errorProblem(response);
    }
    if (status == 204 || status == 202 && response.body().length == 0) {
      return Optional.empty();
    }
    String type = response.header("content-type");
    if (type != null && type.startsWith("application/json")) {
      try {
        JSON.readTree(response.body());
      } catch (Exception e) {
        return Optional.of(status + " with a body that is not JSON");
      }
    }
    return Optional.empty();
  }

  private static Optional<String> headProblem(Response response) {
    int status = response.status();
    if (status >= 500 && !(status == 503 && response.header("retry-after") != null)) {
      return Optional.of("HEAD answered " + status);
    }
    if (status >= 400 && !CODES.containsKey(status)) {
      return Optional.of("HEAD answered status " + status + ", not one of docs/api.md's");
    }
    if (status == 405 && response.header("allow") == null) {
      return Optional.of("405 without Allow");
    }
    return Optional.empty();
  }

  private static Optional<String> errorProblem(Response response) {
    int status = response.status();
    Set<String> expected = CODES.get(status);
    if (expected == null) {
      return Optional.of("status " + status + " is not one of docs/api.md's");
    }
    String type = response.header("content-type");
    if (type == null || !type.startsWith("application/json")) {
      return Optional.of(status + " answered as " + type + ", not the JSON error body");
    }
    JsonNode body;
    try {
      body = JSON.readTree(response.body());
    } catch (Exception e) {
      return Optional.of(status + " with an error body that is not JSON");
    }
    if (body == null || !body.path("error").isTextual() || !body.path("message").isTextual()) {
      return Optional.of(status + " without {\"error\", \"message\"}: " + response.text());
    }
    if (!expected.contains(body.get("error").asText())) {
      return Optional.of(
          status + " with code " + body.get("error").asText() + ", not one of " + expected);
    }
    if ((status == 503 || status == 429) && response.header("retry-after") == null) {
      return Optional.of(status + " without Retry-After");
    }
    if (status == 405 && response.header("allow") == null) {
      return Optional.of("405 without Allow");
    }
    return Optional.empty();
  }
}
