package dev.rota.http.api;

import com.fasterxml.jackson.databind.JsonNode;
import dev.rota.core.model.AgentConfigPatch;
import dev.rota.http.ApiException;
import java.util.List;

/**
 * The body of {@code PUT /v1/agents/{agentId}}. Every field is optional: absent (or null) fields
 * take their defaults on create and keep their values on update.
 */
public record RegisterAgentRequest(
    String name,
    List<String> capabilities,
    Integer priority,
    Long minActivationIntervalSeconds,
    Integer maxInboxDepth,
    Integer maxAttempts,
    JsonNode metadata) {

  public static final int MAX_INBOX_DEPTH = 100_000;
  public static final int MAX_ATTEMPTS = 100;

  /** The validated change; a 400 naming the field when a value is out of range. */
  public AgentConfigPatch toPatch() {
    if (name != null && name.isBlank()) {
      throw ApiException.invalid("name must not be blank");
    }
    if (capabilities != null) {
      for (int i = 0; i < capabilities.size(); i++) {
        String capability = capabilities.get(i);
        if (capability == null || capability.isBlank()) {
          throw ApiException.invalid("capabilities[" + i + "] must be a non-blank string");
        }
        // The read model stores capabilities comma-separated.
        if (capability.contains(",")) {
          throw ApiException.invalid("capabilities[" + i + "] must not contain a comma");
        }
      }
    }
    if (minActivationIntervalSeconds != null && minActivationIntervalSeconds < 0) {
      throw ApiException.invalid(
          "minActivationIntervalSeconds must be 0 or more, not " + minActivationIntervalSeconds);
    }
    checkRange("maxInboxDepth", maxInboxDepth, 1, MAX_INBOX_DEPTH);
    checkRange("maxAttempts", maxAttempts, 1, MAX_ATTEMPTS);
    JsonNode meta = metadata == null || metadata.isNull() ? null : metadata;
    if (meta != null && !meta.isObject()) {
      throw ApiException.invalid("metadata must be a JSON object");
    }
    return new AgentConfigPatch(
        name,
        capabilities == null ? null : List.copyOf(capabilities),
        priority,
        minActivationIntervalSeconds,
        maxInboxDepth,
        maxAttempts,
        meta);
  }

  private static void checkRange(String field, Integer value, int min, int max) {
    if (value != null && (value < min || value > max)) {
      throw ApiException.invalid(
          field + " must be between " + min + " and " + max + ", not " + value);
    }
  }
}
