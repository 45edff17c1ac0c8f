package dev.rota.http.api;

import com.fasterxml.jackson.databind.JsonNode;
import dev.rota.core.model.AgentConfig;
import dev.rota.core.model.AgentConfigPatch;
import dev.rota.core.model.NewInput;
import dev.rota.core.model.Schedule;
import dev.rota.http.ApiException;
import java.util.ArrayList;
import java.util.List;

/**
 * The body of {@code PUT /v1/agents/{agentId}}. Every field is optional: absent (or null) fields
 * take their defaults on create and keep their values on update.
 */
public record RegisterAgentRequest(
    String name,
    List<String> capabilities,
    Integer priority,
    Long minActivationIntervalSeconds,
    Integer maxInboxDepth,
    Integer maxAttempts,
    JsonNode metadata,
    List<ScheduleSpec> schedules,
    String newInput,
    Long debounceMs,
    Long debounceMaxMs) {

  public static final int MAX_NAME_LENGTH = 256;
  public static final int MIN_PRIORITY = -1000;
  public static final int MAX_PRIORITY = 1000;

  /** 30 days: an agent may ask not to run more often than this, and no more. */
  public static final long MAX_MIN_ACTIVATION_INTERVAL_SECONDS = 2_592_000;

  public static final int MAX_INBOX_DEPTH = 100_000;
  public static final int MAX_ATTEMPTS = 100;

  /** The validated change; a 400 naming the field when a value is out of range. */
  public AgentConfigPatch toPatch() {
    Fields.checkText("name", name, MAX_NAME_LENGTH);
    List<String> caps = Fields.checkCapabilities(capabilities);
    Fields.checkRange("priority", priority, MIN_PRIORITY, MAX_PRIORITY);
    Fields.checkRange(
        "minActivationIntervalSeconds",
        minActivationIntervalSeconds,
        0,
        MAX_MIN_ACTIVATION_INTERVAL_SECONDS);
    Fields.checkRange("maxInboxDepth", maxInboxDepth, 1, MAX_INBOX_DEPTH);
    Fields.checkRange("maxAttempts", maxAttempts, 1, MAX_ATTEMPTS);
    JsonNode meta = metadata == null || metadata.isNull() ? null : metadata;
    if (meta != null && !meta.isObject()) {
      throw ApiException.invalid("field 'metadata' must be a JSON object");
    }
    List<Schedule> checkedSchedules = checkSchedules(schedules);
    NewInput policy = checkNewInput("newInput", newInput);
    Fields.checkRange("debounceMs", debounceMs, 0, AgentConfig.MAX_DEBOUNCE_MS);
    Fields.checkRange("debounceMaxMs", debounceMaxMs, 0, AgentConfig.MAX_DEBOUNCE_MAX_MS);
    if (debounceMs != null && debounceMaxMs != null && debounceMaxMs < debounceMs) {
      throw ApiException.invalid(
          "field 'debounceMaxMs' must be at least debounceMs ("
              + debounceMs
              + "), not "
              + debounceMaxMs);
    }
    return new AgentConfigPatch(
        name,
        caps,
        priority,
        minActivationIntervalSeconds,
        maxInboxDepth,
        maxAttempts,
        meta,
        checkedSchedules,
        policy,
        debounceMs,
        debounceMaxMs);
  }

  /** The policy a wire name names; null when absent, a 400 naming the field when unknown. */
  public static NewInput checkNewInput(String field, String value) {
    if (value == null) {
      return null;
    }
    NewInput policy = NewInput.fromWire(value);
    if (policy == null) {
      throw ApiException.invalid(
          "field '" + field + "' must be one of " + NewInput.wireNames() + ", not '" + value + "'");
    }
    return policy;
  }

  /** At most 16, names unique, cron and zone valid, payload an object; a 400 naming the field. */
  private static List<Schedule> checkSchedules(List<ScheduleSpec> schedules) {
    if (schedules == null) {
      return null;
    }
    List<Schedule> checked = new ArrayList<>(schedules.size());
    for (int i = 0; i < schedules.size(); i++) {
      ScheduleSpec spec = schedules.get(i);
      String field = "schedules[" + i + "]";
      if (spec == null) {
        throw ApiException.invalid("field '" + field + "' must be an object");
      }
      if (spec.name() == null) {
        throw ApiException.invalid("field '" + field + ".name' is required");
      }
      if (spec.cron() == null) {
        throw ApiException.invalid("field '" + field + ".cron' is required");
      }
      Fields.checkText(field + ".name", spec.name(), Schedule.MAX_NAME_LENGTH);
      Fields.checkText(field + ".cron", spec.cron(), Schedule.MAX_CRON_LENGTH);
      Fields.checkText(field + ".timezone", spec.timezone(), 64);
      checked.add(spec.toSchedule());
    }
    Schedule.firstViolation(checked)
        .ifPresent(
            v -> {
              throw ApiException.invalid(v.message());
            });
    return checked;
  }
}
