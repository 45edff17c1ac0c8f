package dev.rota.cluster.readmodel;

import java.time.Instant;

/**
 * A dead letter as {@code GET /admin/dead-letters} lists it.
 *
 * @param id routes to the agent (see {@code Ids.deadLetterId}); redrive or discard it with this id
 * @param payload the notification's JSON payload as text, null when it had none
 * @param attempts attempts consumed before it died
 */
public record DeadLetterRow(
    String id,
    String agentId,
    String notificationId,
    String type,
    String payload,
    int attempts,
    String reason,
    Instant deadAt) {}
