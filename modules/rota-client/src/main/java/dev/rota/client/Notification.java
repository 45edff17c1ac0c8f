package dev.rota.client;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.JsonNode;

/**
 * A notification to send ({@code POST /v1/agents/{id}/notifications}).
 *
 * <pre>{@code
 * client.notify("a1", Notification.of("mention", payload).dedupeKey("post-p9"));
 * }</pre>
 *
 * <p>The client retries the send on 503 and on connection failures under the same {@code
 * dedupeKey}: a repeat of an accepted notification is answered as a duplicate, never stored twice.
 * Without a key of the caller's, {@link RotaClient#notify} sends a generated one ({@code
 * sdk-<uuid>}).
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record Notification(String type, JsonNode payload, String dedupeKey) {

  public static Notification of(String type) {
    return new Notification(type, null, null);
  }

  public static Notification of(String type, JsonNode payload) {
    return new Notification(type, payload, null);
  }

  public Notification dedupeKey(String key) {
    return new Notification(type, payload, key);
  }
}
