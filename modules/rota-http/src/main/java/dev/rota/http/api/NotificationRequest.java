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

  public static final int MAX_TYPE_LENGTH = 128;
  public static final int MAX_DEDUPE_KEY_LENGTH = 256;

  /** Checks the fields; a 400 naming the field otherwise. */
  public NotificationRequest validated() {
    if (type == null) {
      throw ApiException.invalid("field 'type' is required");
    }
    Fields.checkText("type", type, MAX_TYPE_LENGTH);
    Fields.checkText("dedupeKey", dedupeKey, MAX_DEDUPE_KEY_LENGTH);
    return new NotificationRequest(
        type, payload == null ? JsonNodeFactory.instance.objectNode() : payload, dedupeKey);
  }
}
