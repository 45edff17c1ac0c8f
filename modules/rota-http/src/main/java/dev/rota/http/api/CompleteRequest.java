package dev.rota.http.api;

import com.fasterxml.jackson.databind.JsonNode;
import dev.rota.http.ApiException;

/**
 * The body of {@code POST /v1/leases/{leaseId}/complete}; {@code result} is optional.
 *
 * @param runnerId the runner that claimed the lease
 * @param result what the activation produced, a JSON object; kept in the agent's journal
 * @param next the claim to make once the completion is durable, answered beside it; optional
 */
public record CompleteRequest(String runnerId, JsonNode result, NextClaim next) {

  /** The result to store, null when none was given; a 400 naming the field otherwise. */
  public JsonNode validatedResult() {
    if (result == null || result.isNull()) {
      return null;
    }
    if (!result.isObject()) {
      throw ApiException.invalid("result must be a JSON object");
    }
    return result;
  }

  /** The runner id, checked; a 400 naming the field otherwise. */
  public String validatedRunnerId() {
    return Fields.checkRunnerId(runnerId);
  }
}
