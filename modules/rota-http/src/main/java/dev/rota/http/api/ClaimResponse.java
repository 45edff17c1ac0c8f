package dev.rota.http.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.JsonNode;

/**
 * The 200 answer of {@code POST /v1/claims}: {@code {"status": "assigned", "assignment": {...}}},
 * {@code {"status": "none"}} or {@code {"status": "paused"}}.
 *
 * @param assignment the assignment object of API.md, only when assigned
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record ClaimResponse(String status, JsonNode assignment) {
  public static final ClaimResponse NONE = new ClaimResponse("none", null);
  public static final ClaimResponse PAUSED = new ClaimResponse("paused", null);

  public static ClaimResponse assigned(JsonNode assignment) {
    return new ClaimResponse("assigned", assignment);
  }
}
