package dev.rota.http.api;

import com.fasterxml.jackson.databind.JsonNode;
import dev.rota.core.model.Schedule;

/**
 * One entry of {@code schedules} in {@code PUT /v1/agents/{agentId}}: a 5-field cron expression, an
 * IANA time zone ({@code UTC} when absent) and the payload its turns carry.
 */
public record ScheduleSpec(String name, String cron, String timezone, JsonNode payload) {
  Schedule toSchedule() {
    JsonNode body = payload == null || payload.isNull() ? null : payload;
    return new Schedule(name, cron, timezone, body);
  }
}
