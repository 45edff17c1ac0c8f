package dev.rota.cluster.runner;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.rota.cluster.agent.AgentEntity;
import dev.rota.cluster.assign.ActivationJson;
import dev.rota.core.model.AgentConfig;
import dev.rota.core.model.Lease;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/**
 * One turn of one agent as an {@link Executor} receives it: the granted lease and its rendering as
 * the assignment object of docs/api.md, which is what executors hand to the outside world.
 *
 * @param json the assignment object; executors must not modify it
 */
public record Activation(AgentEntity.Granted granted, ObjectNode json) {
  private static final ObjectMapper MAPPER = new ObjectMapper();

  public static Activation of(AgentEntity.Granted granted) {
    return new Activation(granted, ActivationJson.assignment(granted));
  }

  public Lease lease() {
    return granted.lease();
  }

  public String leaseId() {
    return granted.lease().leaseId();
  }

  public String agentId() {
    return json.get("agentId").asText();
  }

  public AgentConfig agent() {
    return granted.agent();
  }

  /** The agent's free metadata object (never null). */
  public JsonNode metadata() {
    return json.get("agent").get("metadata");
  }

  /** The assignment object as UTF-8 JSON bytes. */
  public byte[] jsonBytes() {
    return jsonText().getBytes(StandardCharsets.UTF_8);
  }

  public String jsonText() {
    try {
      return MAPPER.writeValueAsString(json);
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }
}
