package dev.rota.core.model;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * The reply to a call, as the caller's notification of type {@value #TYPE} carries it: {@code
 * {"callId", "from": {"tenant", "agentId"}, "status", "result" | "error": {"reason", "message"}}}.
 */
public final class Replies {
  public static final String TYPE = "rota.reply";
  public static final String ANSWERED = "answered";
  public static final String FAILED = "failed";
  public static final String TIMED_OUT = "timedOut";

  /** The target does not exist, or refused the call longer than the delivery timeout. */
  public static final String UNDELIVERABLE = "undeliverable";

  /** The call would have been deeper than {@code rota.calls.max-depth}. */
  public static final String DEPTH_EXCEEDED = "depth_exceeded";

  private Replies() {}

  /** The payload of an answered call: the completion's result (null when it gave none). */
  public static ObjectNode answered(String callId, CallInfo.Party from, JsonNode result) {
    ObjectNode node = base(callId, from, ANSWERED);
    node.set("result", result == null ? JsonNodeFactory.instance.nullNode() : result.deepCopy());
    return node;
  }

  /** The payload of a call that failed ({@code reason}) or timed out. */
  public static ObjectNode failed(
      String callId, CallInfo.Party from, String status, String reason, String message) {
    ObjectNode node = base(callId, from, status);
    ObjectNode error = node.putObject("error");
    error.put("reason", reason);
    error.put("message", message);
    return node;
  }

  /** The status a reply's payload names. */
  public static String statusOf(JsonNode payload) {
    JsonNode status = payload == null ? null : payload.get("status");
    return status == null ? FAILED : status.asText();
  }

  private static ObjectNode base(String callId, CallInfo.Party from, String status) {
    ObjectNode node = JsonNodeFactory.instance.objectNode();
    node.put("callId", callId);
    ObjectNode party = node.putObject("from");
    party.put("tenant", from.tenant());
    if (from.agentId() != null) {
      party.put("agentId", from.agentId());
    }
    node.put("status", status);
    return node;
  }
}
