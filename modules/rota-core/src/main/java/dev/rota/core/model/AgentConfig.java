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
 * @param newInput what a notification arriving during a turn does to it ({@link NewInput#QUEUE}
 *     when absent, as in configurations written before it existed)
 * @param debounceMs a notification makes the agent eligible only after this long without a newer
 *     one (0: at once)
 * @param debounceMaxMs the most the first unread notification waits for a burst to end; 0 means
 *     {@link #DEFAULT_DEBOUNCE_MAX_FACTOR} times {@code debounceMs}
 */
public record AgentConfig(
    String name,
    List<String> capabilities,
    int priority,
    long minActivationIntervalSeconds,
    int maxInboxDepth,
    int maxAttempts,
    JsonNode metadata,
    List<Schedule> schedules,
    NewInput newInput,
    long debounceMs,
    long debounceMaxMs) {

  public static final int DEFAULT_MAX_INBOX_DEPTH = 100;
  public static final int DEFAULT_MAX_ATTEMPTS = 3;

  /** The most schedules one agent may have. */
  public static final int MAX_SCHEDULES = 16;

  /** The longest {@code debounceMs}. */
  public static final long MAX_DEBOUNCE_MS = 60_000;

  /** The longest {@code debounceMaxMs}. */
  public static final long MAX_DEBOUNCE_MAX_MS = 600_000;

  /** {@code debounceMaxMs} when not given, in multiples of {@code debounceMs}. */
  public static final int DEFAULT_DEBOUNCE_MAX_FACTOR = 10;

  public AgentConfig {
    capabilities = capabilities == null ? List.of() : List.copyOf(new TreeSet<>(capabilities));
    if (metadata == null || metadata.isNull()) {
      metadata = JsonNodeFactory.instance.objectNode();
    }
    // Configurations written before schedules existed have none.
    schedules = schedules == null ? List.of() : List.copyOf(schedules);
    newInput = newInput == null ? NewInput.QUEUE : newInput;
  }

  /** A configuration with these schedules, queueing new input, without debounce. */
  public AgentConfig(
      String name,
      List<String> capabilities,
      int priority,
      long minActivationIntervalSeconds,
      int maxInboxDepth,
      int maxAttempts,
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
        NewInput.QUEUE,
        0,
        0);
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

  /** Whether a burst of notifications waits before the agent is eligible. */
  public boolean debounces() {
    return debounceMs > 0;
  }

  /**
   * The most the first unread notification waits for a burst to end (see {@code debounceMaxMs}).
   */
  public long effectiveDebounceMaxMs() {
    if (debounceMaxMs > 0) {
      return Math.max(debounceMaxMs, debounceMs);
    }
    return Math.min(debounceMs * DEFAULT_DEBOUNCE_MAX_FACTOR, MAX_DEBOUNCE_MAX_MS);
  }

  public Duration minActivationInterval() {
    return Duration.ofSeconds(minActivationIntervalSeconds);
  }
}
