package dev.rota.core.model;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Instant;

/**
 * An item in an agent's inbox.
 *
 * @param dedupeKey null when the producer gave none
 * @param attempts attempts consumed so far; the next delivery is attempt {@code attempts + 1}
 * @param call when the notification is a call, who made it: the turn that carries it answers them
 *     (null otherwise, and in events written before calls existed)
 */
public record Notification(
    String notificationId,
    String type,
    JsonNode payload,
    String dedupeKey,
    Instant receivedAt,
    int attempts,
    CallInfo call) {

  public Notification(
      String notificationId,
      String type,
      JsonNode payload,
      String dedupeKey,
      Instant receivedAt,
      int attempts) {
    this(notificationId, type, payload, dedupeKey, receivedAt, attempts, null);
  }

  public Notification {
    // JSON null and a missing payload are the same thing, also after a round trip.
    if (payload == null) {
      payload = com.fasterxml.jackson.databind.node.NullNode.getInstance();
    }
  }

  /**
   * About how many bytes this notification takes as JSON text: its type, dedupe key and payload
   * (strings by their length, every other value a few bytes). Cheap enough to sum over an inbox,
   * close enough to bound one.
   */
  public long estimatedBytes() {
    return length(notificationId) + length(type) + length(dedupeKey) + estimatedBytes(payload);
  }

  private static long length(String s) {
    return s == null ? 0 : s.length() + 2;
  }

  private static long estimatedBytes(JsonNode node) {
    if (node == null) {
      return 4;
    }
    if (node.isTextual()) {
      return length(node.textValue());
    }
    if (node.isContainerNode()) {
      long bytes = 2;
      var fields = node.fields();
      if (node.isObject()) {
        while (fields.hasNext()) {
          var field = fields.next();
          bytes += length(field.getKey()) + 1 + estimatedBytes(field.getValue()) + 1;
        }
      } else {
        for (JsonNode element : node) {
          bytes += estimatedBytes(element) + 1;
        }
      }
      return bytes;
    }
    return 8;
  }

  public Notification withAttempts(int newAttempts) {
    return new Notification(
        notificationId, type, payload, dedupeKey, receivedAt, newAttempts, call);
  }

  public Notification redriven(Instant at) {
    return new Notification(notificationId, type, payload, dedupeKey, at, 0, call);
  }
}
