package dev.rota.cluster.assign;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.rota.cluster.agent.AgentEntity;
import dev.rota.core.model.AgentConfig;
import dev.rota.core.model.CallInfo;
import dev.rota.core.model.Ids;
import dev.rota.core.model.Lease;
import dev.rota.core.model.Notification;
import dev.rota.core.model.Schedule;
import dev.rota.core.model.ScheduleFire;
import dev.rota.core.tenant.AgentKeys;
import java.time.Instant;

/**
 * Renders a granted lease as the assignment object of docs/api.md ({@code POST /v1/claims}), the
 * one JSON shape a runner ever sees: external runners get it from the claim route, in-cluster
 * executors on stdin or as a webhook body. Times are ISO-8601 in UTC; a notification's {@code
 * attempt} is the delivery number, one more than the attempts it has used up. Payloads and metadata
 * are copied: on one node the granted lease shares its JSON trees with the entity's state, which
 * must not change under a runner that edits what it was given.
 */
public final class ActivationJson {
  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

  private ActivationJson() {}

  /**
   * {@code
   * {"leaseId","agentId","tenant","kind","attempt","grantedAt","expiresAt","notifications","more","agent"}},
   * with {@code "owes"} when earlier turns deferred calls, and for a scheduled turn {@code
   * "schedule": {"name","firedAt","payload"}}.
   */
  public static ObjectNode assignment(AgentEntity.Granted granted) {
    Lease lease = granted.lease();
    ObjectNode node = JSON.objectNode();
    node.put("leaseId", lease.leaseId());
    String key = agentIdOf(lease);
    node.put("agentId", AgentKeys.agentIdOf(key));
    node.put("tenant", AgentKeys.tenantOf(key));
    node.put("kind", lease.kind().wireName());
    node.put("attempt", lease.attempt());
    node.put("grantedAt", time(lease.grantedAt()));
    node.put("expiresAt", time(lease.expiresAt()));
    ArrayNode notifications = node.putArray("notifications");
    granted.notifications().forEach(n -> notifications.add(notification(n)));
    node.put("more", granted.more());
    if (!granted.owes().isEmpty()) {
      // Only when some are owed: an assignment of an agent that never deferred is as it was.
      ArrayNode owes = node.putArray("owes");
      granted.owes().forEach(c -> owes.add(call(c)));
    }
    node.set("agent", agent(granted.agent()));
    if (lease.schedule() != null) {
      node.set("schedule", schedule(lease.schedule(), granted.agent()));
    }
    return node;
  }

  private static ObjectNode schedule(ScheduleFire fire, AgentConfig config) {
    ObjectNode node = JSON.objectNode();
    node.put("name", fire.name());
    node.put("firedAt", time(fire.firedAt()));
    // The lease names the schedule; its payload is the agent's at the grant, which came with it.
    JsonNode payload = config.schedule(fire.name()).map(Schedule::payload).orElse(null);
    node.set("payload", payload == null ? JSON.objectNode() : payload.deepCopy());
    return node;
  }

  /** The key of the agent a lease belongs to; lease ids always embed it. */
  public static String agentIdOf(Lease lease) {
    return Ids.agentOf(lease.leaseId())
        .orElseThrow(() -> new IllegalArgumentException("malformed lease id " + lease.leaseId()));
  }

  /** Notifications as an assignment shows them (new input during a turn is shown alike). */
  public static ArrayNode notifications(java.util.List<Notification> list) {
    ArrayNode array = JSON.arrayNode();
    list.forEach(n -> array.add(notification(n)));
    return array;
  }

  private static ObjectNode notification(Notification n) {
    ObjectNode node = JSON.objectNode();
    node.put("notificationId", n.notificationId());
    node.put("type", n.type());
    node.set("payload", n.payload() == null ? JSON.nullNode() : n.payload().deepCopy());
    node.put("receivedAt", time(n.receivedAt()));
    node.put("attempt", n.attempts() + 1);
    if (n.call() != null) {
      node.set("call", call(n.call()));
    }
    return node;
  }

  /** A call as a notification's {@code call} and an assignment's {@code owes} show it. */
  public static ObjectNode call(CallInfo c) {
    ObjectNode call = JSON.objectNode();
    call.put("callId", c.callId());
    ObjectNode from = call.putObject("from");
    from.put("tenant", c.from().tenant());
    from.put("agentId", c.from().agentId());
    call.put("depth", c.depth());
    return call;
  }

  private static ObjectNode agent(AgentConfig config) {
    ObjectNode node = JSON.objectNode();
    node.put("name", config.name());
    ArrayNode capabilities = node.putArray("capabilities");
    config.capabilities().forEach(capabilities::add);
    JsonNode metadata = config.metadata();
    node.set("metadata", metadata == null ? JSON.objectNode() : metadata.deepCopy());
    node.put("newInput", config.newInput().wireName());
    return node;
  }

  private static String time(Instant instant) {
    return instant == null ? null : instant.toString();
  }
}
