package dev.rota.http.api;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Instant;

/**
 * The answer to a heartbeat: the lease now runs until {@code expiresAt}.
 *
 * @param notifications the notifications steered into the turn since the runner's last answer (as
 *     an assignment shows them); empty for an agent whose new input only queues
 */
public record LeaseExtended(Instant expiresAt, JsonNode notifications) {}
