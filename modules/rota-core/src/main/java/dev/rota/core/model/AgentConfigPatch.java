package dev.rota.core.model;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;

/**
 * A register-or-update request: every field may be absent (null). On create the absent fields take
 * their defaults; on update they keep the agent's current values.
 */
public record AgentConfigPatch(
    String name,
    List<String> capabilities,
    Integer priority,
    Long minActivationIntervalSeconds,
    Integer maxInboxDepth,
    Integer maxAttempts,
    JsonNode metadata,
    List<Schedule> schedules,
    NewInput newInput,
    Long debounceMs,
    Long debounceMaxMs) {

  /** A change of these fields that leaves new input and debounce as they are. */
  public AgentConfigPatch(
      String name,
      List<String> capabilities,
      Integer priority,
      Long minActivationIntervalSeconds,
      Integer maxInboxDepth,
      Integer maxAttempts,
      JsonNode metadata,
      List<Schedule> schedules) {
    this(
        name,
        capabilities,
        priority,
        minActivationIntervalSeconds,
        maxInboxDepth,
        maxAttempts,
        metadata,
        schedules,
        null,
        null,
        null);
  }

  /** A change that leaves the schedules as they are. */
  public AgentConfigPatch(
      String name,
      List<String> capabilities,
      Integer priority,
      Long minActivationIntervalSeconds,
      Integer maxInboxDepth,
      Integer maxAttempts,
      JsonNode metadata) {
    this(
        name,
        capabilities,
        priority,
        minActivationIntervalSeconds,
        maxInboxDepth,
        maxAttempts,
        metadata,
        null);
  }

  public static AgentConfigPatch empty() {
    return new AgentConfigPatch(null, null, null, null, null, null, null, null, null, null, null);
  }

  public AgentConfig applyTo(AgentConfig base) {
    return new AgentConfig(
        name != null ? name : base.name(),
        capabilities != null ? capabilities : base.capabilities(),
        priority != null ? priority : base.priority(),
        minActivationIntervalSeconds != null
            ? minActivationIntervalSeconds
            : base.minActivationIntervalSeconds(),
        maxInboxDepth != null ? maxInboxDepth : base.maxInboxDepth(),
        maxAttempts != null ? maxAttempts : base.maxAttempts(),
        metadata != null ? metadata : base.metadata(),
        schedules != null ? schedules : base.schedules(),
        newInput != null ? newInput : base.newInput(),
        debounceMs != null ? debounceMs : base.debounceMs(),
        // A new debounceMs without a new maximum takes the default maximum again.
        debounceMaxMs != null ? debounceMaxMs : debounceMs != null ? 0 : base.debounceMaxMs());
  }
}
