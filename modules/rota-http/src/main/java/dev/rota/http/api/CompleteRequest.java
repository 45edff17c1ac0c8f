package dev.rota.http.api;

import com.fasterxml.jackson.databind.JsonNode;
import dev.rota.core.model.Send;
import dev.rota.http.ApiException;
import java.util.List;

/**
 * The body of {@code POST /v1/leases/{leaseId}/complete}; {@code result} is optional.
 *
 * @param runnerId the runner that claimed the lease
 * @param result what the activation produced, a JSON object; kept in the agent's journal
 * @param next the claim to make once the completion is durable, answered beside it; optional
 * @param send notifications for other agents, delivered if and only if the completion is durable;
 *     optional
 * @param defer ids of calls (carried by this turn, or deferred by an earlier one) this completion
 *     does not answer: they stay owed; optional
 * @param inputSeen the runner's cursor on new input: the steered notifications the turn was given
 *     (the others stay unread); optional, absent for a runner that keeps none
 */
public record CompleteRequest(
    String runnerId,
    JsonNode result,
    NextClaim next,
    List<SendRequest> send,
    List<String> defer,
    List<String> inputSeen) {

  /** The cursor on new input, null when absent; a 400 naming the item otherwise. */
  public List<String> validatedInputSeen() {
    return Fields.checkInputSeen(inputSeen);
  }

  /** The call ids to defer, empty when none; a 400 naming the item otherwise. */
  public List<String> validatedDefer() {
    if (defer == null) {
      return List.of();
    }
    for (int i = 0; i < defer.size(); i++) {
      String callId = defer.get(i);
      if (callId == null || callId.isBlank()) {
        throw ApiException.invalid("defer[" + i + "] must be a call id");
      }
    }
    return List.copyOf(defer);
  }

  /** The checked sends, empty when none; a 400 naming the item's field otherwise. */
  public List<Send> validatedSends() {
    return SendRequest.validated(send);
  }

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
