package dev.rota.http.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.rota.core.model.CallRequest;
import dev.rota.core.model.NewInput;
import dev.rota.http.ApiException;

/**
 * The body of {@code POST /v1/agents/{agentId}/notifications}.
 *
 * @param type required, non-blank
 * @param payload any JSON; {@code {}} when absent or null
 * @param dedupeKey optional; a second notification with the same key is a duplicate while the first
 *     is unread or within the dedupe window
 * @param newInput optional; what this notification does to a turn in flight, over the agent's own
 *     {@code newInput}
 * @param call optional; the producer wants the answer of the turn that carries it ({@code GET
 *     /v1/calls/{callId}}); only {@code timeoutSeconds}
 */
public record NotificationRequest(
    String type, JsonNode payload, String dedupeKey, String newInput, SendRequest.CallSpec call) {

  public NotificationRequest(String type, JsonNode payload, String dedupeKey, String newInput) {
    this(type, payload, dedupeKey, newInput, null);
  }

  public static final int MAX_TYPE_LENGTH = 128;
  public static final int MAX_DEDUPE_KEY_LENGTH = 256;

  /** Checks the fields; a 400 naming the field otherwise. */
  public NotificationRequest validated() {
    if (type == null) {
      throw ApiException.invalid("field 'type' is required");
    }
    Fields.checkText("type", type, MAX_TYPE_LENGTH);
    Fields.checkText("dedupeKey", dedupeKey, MAX_DEDUPE_KEY_LENGTH);
    RegisterAgentRequest.checkNewInput("newInput", newInput);
    if (call != null) {
      call.validated("call");
      if (call.group() != null) {
        throw ApiException.invalid("field 'call.group' is only for the sends of a turn");
      }
    }
    return new NotificationRequest(
        type,
        payload == null ? JsonNodeFactory.instance.objectNode() : payload,
        dedupeKey,
        newInput,
        call);
  }

  /** The call this notification makes, checked; null when it is none. */
  public CallRequest callRequest() {
    return call == null ? null : call.validated("call");
  }

  /** The policy this notification asks for; null: the agent's own. */
  public NewInput policy() {
    return NewInput.fromWire(newInput);
  }
}
