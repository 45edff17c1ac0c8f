package dev.rota.client;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Optional;

/**
 * The answer to a call a turn made, as it arrives: a later notification of type {@value #TYPE} in
 * the caller's inbox (docs/api.md, "Agents that work together"). Exactly one reply comes per call,
 * whatever fails; the replies of a call group come together, in one turn.
 *
 * <pre>{@code
 * for (Assignment.Item n : activation.assignment().notifications()) {
 *   n.reply().ifPresent(reply -> {
 *     if (reply.answered()) {
 *       merge(reply.from().agentId(), reply.result());
 *     }
 *   });
 * }
 * }</pre>
 *
 * @param from the agent that was called (and answered, if it did)
 * @param result the completion's result of the turn that served the call, when {@link
 *     CallStatus#ANSWERED}; may be null
 * @param error why, when {@link CallStatus#FAILED}; null otherwise
 */
public record Reply(
    String callId, AgentRef from, CallStatus status, JsonNode result, CallError error) {

  /** The type of a reply notification. */
  public static final String TYPE = "rota.reply";

  /** Whether {@code notification} is a reply to a call. */
  public static boolean isReply(Assignment.Item notification) {
    return TYPE.equals(notification.type());
  }

  /**
   * The reply {@code notification} carries; empty when it is not a reply.
   *
   * @throws IllegalArgumentException when it is a reply this SDK cannot read
   */
  public static Optional<Reply> from(Assignment.Item notification) {
    if (!isReply(notification)) {
      return Optional.empty();
    }
    return Optional.of(fromPayload(notification.payload()));
  }

  /** The reply of a {@value #TYPE} notification's payload. */
  public static Reply fromPayload(JsonNode payload) {
    if (payload == null || !payload.isObject() || !payload.path("callId").isTextual()) {
      throw new IllegalArgumentException("not a reply's payload: " + payload);
    }
    JsonNode result = payload.get("result");
    return new Reply(
        payload.get("callId").asText(),
        Json.MAPPER.convertValue(payload.get("from"), AgentRef.class),
        CallStatus.of(payload.path("status").asText()),
        result == null || result.isNull() ? null : result,
        Json.MAPPER.convertValue(payload.get("error"), CallError.class));
  }

  public boolean answered() {
    return status == CallStatus.ANSWERED;
  }
}
