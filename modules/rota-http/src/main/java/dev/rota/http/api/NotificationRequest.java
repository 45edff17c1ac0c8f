package dev.rota.http.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.rota.http.ApiException;

/**
 * The body of {@code POST /v1/agents/{agentId}/notifications}.
 *
 * @param type required, non-blank
 * @param payload any JSON; {@code {}} when absent or null
 * @param dedupeKey optional; a second notification with the same key is a duplicate while the first
 *     is unread or within the dedupe window
 */
public record NotificationRequest(String type, JsonNode payload, String dedupeKey) {

  /** Checks the fields; a 400 naming the field otherwise. */
  public NotificationRequest validated() {
    if (type == null) {
      throw ApiException.invalid("type is required");
    }
    if (type.isBlank()) {
      throw ApiException.invalid("type must not be blank");
    }
    if (dedupeKey != null && dedupeKey.isBlank()) {
      throw ApiException.invalid("dedupeKey must not be blank when given");
    }
    return new NotificationRequest(
        type, payload == null ? JsonNodeFactory.instance.objectNode() : payload, dedupeKey);
  }
}
