package dev.rota.client;

import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * A notification a turn sends to another agent of its tenant with its completion ({@code "send"} of
 * {@code POST /v1/leases/{id}/complete}); a call when {@code call} is not null.
 *
 * @param call the call's options; null for a plain send
 */
public record Send(String agentId, Notification notification, CallOptions call) {

  public Send {
    if (agentId == null || notification == null || notification.type() == null) {
      throw new IllegalArgumentException("a send needs an agent id and a notification type");
    }
  }

  /** The item as the completion's {@code send} list carries it. */
  ObjectNode toJson() {
    ObjectNode item = Json.MAPPER.createObjectNode();
    item.put("agentId", agentId);
    item.setAll((ObjectNode) Json.MAPPER.valueToTree(notification));
    if (call != null) {
      item.set("call", Json.MAPPER.valueToTree(call));
    }
    return item;
  }
}
