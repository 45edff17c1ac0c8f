package dev.rota.client;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Instant;

/**
 * One event of {@code GET /v1/events}.
 *
 * @param id the SSE {@code id:} that orders it (what a reconnect resumes after); null from a server
 *     that sends none
 * @param type e.g. {@code notification.accepted}, {@code lease.granted}, {@code
 *     activation.completed}
 * @param agentId null for system events
 * @param data the whole event object, with the ids involved
 */
public record RotaEvent(String id, String type, Instant at, String agentId, JsonNode data) {}
