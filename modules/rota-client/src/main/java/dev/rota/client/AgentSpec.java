package dev.rota.client;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import java.util.Objects;

/**
 * The body of {@code PUT /v1/agents/{id}}: every field optional. On create an absent field takes
 * the server's default; on update it keeps its value.
 *
 * <pre>{@code
 * client.putAgent("a1", AgentSpec.create().name("reviewer").capabilities("code").maxAttempts(5));
 * }</pre>
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public final class AgentSpec {
  private String name;
  private List<String> capabilities;
  private Integer priority;
  private Long minActivationIntervalSeconds;
  private Integer maxInboxDepth;
  private Integer maxAttempts;
  private JsonNode metadata;
  private JsonNode schedules;
  private String newInput;
  private Long debounceMs;
  private Long debounceMaxMs;

  private AgentSpec() {}

  /** An empty spec: registers with the defaults, or changes nothing on update. */
  public static AgentSpec create() {
    return new AgentSpec();
  }

  public AgentSpec name(String name) {
    this.name = name;
    return this;
  }

  public AgentSpec capabilities(String... capabilities) {
    return capabilities(List.of(capabilities));
  }

  public AgentSpec capabilities(List<String> capabilities) {
    this.capabilities = List.copyOf(capabilities);
    return this;
  }

  /** −1000…1000; breaks ties between agents with equally many unread notifications. */
  public AgentSpec priority(int priority) {
    this.priority = priority;
    return this;
  }

  public AgentSpec minActivationIntervalSeconds(long seconds) {
    this.minActivationIntervalSeconds = seconds;
    return this;
  }

  public AgentSpec maxInboxDepth(int depth) {
    this.maxInboxDepth = depth;
    return this;
  }

  public AgentSpec maxAttempts(int attempts) {
    this.maxAttempts = attempts;
    return this;
  }

  /**
   * What a notification arriving during a turn does: {@code queue} (the default), {@code steer},
   * {@code interrupt} or {@code reject}.
   */
  public AgentSpec newInput(String policy) {
    this.newInput = policy;
    return this;
  }

  /**
   * Bursts become one turn: a notification makes the agent eligible only after {@code quiet}
   * without a newer one, and at the latest {@code max} after the oldest unread (null: 10 × quiet).
   */
  public AgentSpec debounce(java.time.Duration quiet, java.time.Duration max) {
    this.debounceMs = quiet.toMillis();
    this.debounceMaxMs = max == null ? null : max.toMillis();
    return this;
  }

  /** Free JSON the runner receives with every activation. */
  public AgentSpec metadata(JsonNode metadata) {
    this.metadata = metadata;
    return this;
  }

  /**
   * The agent's schedules array, as JSON; sent only when set (older servers reject it). Replaces
   * the agent's schedules; an empty array removes them.
   */
  public AgentSpec schedules(JsonNode schedules) {
    this.schedules = schedules;
    return this;
  }

  /**
   * Adds a schedule: at each fire of {@code cron} (5 fields, read in {@code timezone}, an IANA zone
   * or null for UTC) the agent gets a {@code scheduled} turn carrying {@code payload}.
   *
   * <pre>{@code
   * AgentSpec.create().schedule("daily_standup", "0 9 * * *", "Europe/Berlin", payload);
   * }</pre>
   */
  public AgentSpec schedule(String name, String cron, String timezone, JsonNode payload) {
    ArrayNode list =
        schedules instanceof ArrayNode array ? array : JsonNodeFactory.instance.arrayNode();
    ObjectNode entry = list.addObject().put("name", name).put("cron", cron);
    if (timezone != null) {
      entry.put("timezone", timezone);
    }
    if (payload != null) {
      entry.set("payload", payload);
    }
    this.schedules = list;
    return this;
  }

  public String getName() {
    return name;
  }

  public List<String> getCapabilities() {
    return capabilities;
  }

  public Integer getPriority() {
    return priority;
  }

  public Long getMinActivationIntervalSeconds() {
    return minActivationIntervalSeconds;
  }

  public Integer getMaxInboxDepth() {
    return maxInboxDepth;
  }

  public Integer getMaxAttempts() {
    return maxAttempts;
  }

  public JsonNode getMetadata() {
    return metadata;
  }

  public JsonNode getSchedules() {
    return schedules;
  }

  public String getNewInput() {
    return newInput;
  }

  public Long getDebounceMs() {
    return debounceMs;
  }

  public Long getDebounceMaxMs() {
    return debounceMaxMs;
  }

  @Override
  public String toString() {
    return "AgentSpec[name="
        + name
        + ", capabilities="
        + capabilities
        + ", priority="
        + Objects.toString(priority)
        + "]";
  }
}
