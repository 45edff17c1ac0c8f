package dev.rota.core.model;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;

/**
 * What a producer says about an agent when it registers or updates it.
 *
 * @param capabilities kept sorted and without duplicates, so equal sets compare equal
 * @param metadata free JSON object handed to runners with every assignment
 * @param schedules fixed times the agent wants a turn at, names unique (none when absent)
 */
public record AgentConfig(
    String name,
    List<String> capabilities,
    int priority,
    long minActivationIntervalSeconds,
    int maxInboxDepth,
    int maxAttempts,
    JsonNode metadata,
    List<Schedule> schedules) {

  public static final int DEFAULT_MAX_INBOX_DEPTH = 100;
  public static final int DEFAULT_MAX_ATTEMPTS = 3;

  /** The most schedules one agent may have. */
  public static final int MAX_SCHEDULES = 16;

  public AgentConfig {
    capabilities = capabilities == null ? List.of() : List.copyOf(new TreeSet<>(capabilities));
    if (metadata == null || metadata.isNull()) {
      metadata = JsonNodeFactory.instance.objectNode();
    }
    // Configurations written before schedules existed have none.
    schedules = schedules == null ? List.of() : List.copyOf(schedules);
  }

  /** A configuration without schedules. */
  public AgentConfig(
      String name,
      List<String> capabilities,
      int priority,
      long minActivationIntervalSeconds,
      int maxInboxDepth,
      int maxAttempts,
      JsonNode metadata) {
    this(
        name,
        capabilities,
        priority,
        minActivationIntervalSeconds,
        maxInboxDepth,
        maxAttempts,
        metadata,
        List.of());
  }

  /** The schedule of this name, if the agent has it. */
  public Optional<Schedule> schedule(String name) {
    return schedules.stream().filter(s -> s.name().equals(name)).findFirst();
  }

  /** The configuration of an agent registered with an empty body. */
  public static AgentConfig defaults(String agentId) {
    return new AgentConfig(
        agentId, List.of(), 0, 0, DEFAULT_MAX_INBOX_DEPTH, DEFAULT_MAX_ATTEMPTS, null);
  }

  public Duration minActivationInterval() {
    return Duration.ofSeconds(minActivationIntervalSeconds);
  }
}
