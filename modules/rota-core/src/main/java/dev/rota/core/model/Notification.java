package dev.rota.core.model;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Instant;

/**
 * An item in an agent's inbox.
 *
 * @param dedupeKey null when the producer gave none
 * @param attempts attempts consumed so far; the next delivery is attempt {@code attempts + 1}
 */
public record Notification(
    String notificationId,
    String type,
    JsonNode payload,
    String dedupeKey,
    Instant receivedAt,
    int attempts) {

  public Notification {
    // JSON null and a missing payload are the same thing, also after a round trip.
    if (payload == null) {
      payload = com.fasterxml.jackson.databind.node.NullNode.getInstance();
    }
  }

  public Notification withAttempts(int newAttempts) {
    return new Notification(notificationId, type, payload, dedupeKey, receivedAt, newAttempts);
  }

  public Notification redriven(Instant at) {
    return new Notification(notificationId, type, payload, dedupeKey, at, 0);
  }
}
