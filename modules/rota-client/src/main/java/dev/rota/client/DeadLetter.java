package dev.rota.client;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Instant;

/**
 * A dead-lettered notification ({@code GET /admin/dead-letters}).
 *
 * @param id what {@link RotaClient#redrive(String)} and {@link RotaClient#discard(String)} take
 * @param reason why it died: attempts exhausted, or the failure action and error
 */
public record DeadLetter(
    String id,
    String agentId,
    String notificationId,
    String type,
    JsonNode payload,
    int attempts,
    String reason,
    Instant deadAt) {}
