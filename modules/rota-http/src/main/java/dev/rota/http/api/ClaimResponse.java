package dev.rota.http.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.JsonNode;

/**
 * The 200 answer of {@code POST /v1/claims}: {@code {"status": "assigned", "assignment": {...}}},
 * {@code {"status": "none"}} (with a {@code reason} and {@code retryAfterSeconds} when the runner
 * is degraded or draining) or {@code {"status": "paused"}}.
 *
 * @param assignment the assignment object of docs/api.md, only when assigned
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record ClaimResponse(
    String status, JsonNode assignment, String reason, Long retryAfterSeconds) {
  public static final ClaimResponse NONE = new ClaimResponse("none", null, null, null);
  public static final ClaimResponse PAUSED = new ClaimResponse("paused", null, null, null);

  public static ClaimResponse assigned(JsonNode assignment) {
    return new ClaimResponse("assigned", assignment, null, null);
  }

  /** No work for this runner: it is degraded or draining; ask again after the given time. */
  public static ClaimResponse refused(String reason, long retryAfterSeconds) {
    return new ClaimResponse("none", null, reason, retryAfterSeconds);
  }
}
