package dev.rota.http.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.rota.core.model.CallRequest;
import dev.rota.core.model.Ids;
import dev.rota.core.model.Send;
import dev.rota.http.ApiException;
import java.util.ArrayList;
import java.util.List;

/**
 * One item of a completion's {@code send} (docs/api.md, "Agents that work together"): a
 * notification for another agent of the sender's tenant, checked as {@code POST
 * /v1/agents/{agentId}/notifications} checks one, each 400 naming the item's field ({@code
 * send[2].agentId}).
 *
 * @param call optional; the send wants an answer
 */
public record SendRequest(
    String agentId,
    String type,
    JsonNode payload,
    String dedupeKey,
    String newInput,
    CallSpec call) {

  /**
   * The {@code call} of a send, or of a notification from outside Rota.
   *
   * @param timeoutSeconds 1 to 86,400; 3,600 when absent
   * @param group optional; calls of one turn with the same group are answered together
   */
  public record CallSpec(Long timeoutSeconds, String group) {
    public static final int MAX_GROUP_LENGTH = 128;

    /** The checked call; a 400 naming the field ({@code field} is its path) otherwise. */
    public CallRequest validated(String field) {
      Fields.checkRange(
          field + ".timeoutSeconds", timeoutSeconds, 1, CallRequest.MAX_TIMEOUT_SECONDS);
      Fields.checkText(field + ".group", group, MAX_GROUP_LENGTH);
      return new CallRequest(
          timeoutSeconds == null ? CallRequest.DEFAULT_TIMEOUT_SECONDS : timeoutSeconds, group);
    }
  }

  /** The checked sends of a completion (null: none); a 400 naming the item's field otherwise. */
  public static List<Send> validated(List<SendRequest> sends) {
    if (sends == null) {
      return List.of();
    }
    List<Send> checked = new ArrayList<>(sends.size());
    for (int i = 0; i < sends.size(); i++) {
      SendRequest item = sends.get(i);
      String at = "send[" + i + "]";
      if (item == null) {
        throw ApiException.invalid("field '" + at + "' must be an object");
      }
      checked.add(item.validated(at));
    }
    return checked;
  }

  private Send validated(String at) {
    if (agentId == null) {
      throw ApiException.invalid("field '" + at + ".agentId' is required");
    }
    if (!Ids.isValidAgentId(agentId)) {
      throw ApiException.invalid(
          "field '" + at + ".agentId' must be 1-128 of A-Z, a-z, 0-9, '.', '_', ':', '-'");
    }
    if (type == null) {
      throw ApiException.invalid("field '" + at + ".type' is required");
    }
    Fields.checkText(at + ".type", type, NotificationRequest.MAX_TYPE_LENGTH);
    Fields.checkText(at + ".dedupeKey", dedupeKey, NotificationRequest.MAX_DEDUPE_KEY_LENGTH);
    var policy = RegisterAgentRequest.checkNewInput(at + ".newInput", newInput);
    return new Send(
        agentId,
        type,
        payload == null || payload.isNull() ? JsonNodeFactory.instance.objectNode() : payload,
        dedupeKey,
        policy,
        call == null ? null : call.validated(at + ".call"));
  }
}
