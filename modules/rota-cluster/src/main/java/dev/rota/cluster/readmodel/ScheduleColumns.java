package dev.rota.cluster.readmodel;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import dev.rota.cluster.agent.AgentEvents.LeaseGranted;
import dev.rota.core.model.AgentConfig;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Instant;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How an agent's values fit the columns of its {@code agent_schedule} row: the bounded text
 * columns, the configuration as JSON for listings, and the parameter groups several statements
 * share. Every writer of the row (the event writer, the row rebuild) goes through here, so a row
 * reads the same whoever wrote it.
 */
final class ScheduleColumns {
  private static final Logger log = LoggerFactory.getLogger(ScheduleColumns.class);

  /** How {@code agent_schedule.config} holds an agent's configuration. */
  static final ObjectMapper CONFIG_JSON =
      JsonMapper.builder().addModule(new JavaTimeModule()).build();

  private ScheduleColumns() {}

  /**
   * {@code oldest_unread_at} or the bound instant, whichever is earlier (LEAST is not portable);
   * bound by {@link #bindEarliest}.
   */
  static String earliest() {
    return "case when oldest_unread_at is not null and oldest_unread_at <= ?"
        + " then oldest_unread_at else ? end";
  }

  /** Name, capabilities, priority, minimum interval and configuration, from {@code from}. */
  static int bindConfig(PreparedStatement s, int from, String agentId, AgentConfig config)
      throws SQLException {
    int i = from;
    s.setString(i++, Sql.fit(config.name(), 256));
    s.setString(i++, capabilities(agentId, config));
    s.setInt(i++, config.priority());
    s.setLong(i++, config.minActivationIntervalSeconds());
    s.setString(i++, configJson(agentId, config));
    return i;
  }

  /** The whole configuration, for listings read from this table (null if it cannot be written). */
  static String configJson(String agentId, AgentConfig config) {
    try {
      return CONFIG_JSON.writeValueAsString(config);
    } catch (JsonProcessingException e) {
      log.warn("configuration of agent {} not kept in the read model: {}", agentId, e.getMessage());
      return null;
    }
  }

  static int bindEarliest(PreparedStatement s, int from, Instant at) throws SQLException {
    Sql.setInstant(s, from, at);
    Sql.setInstant(s, from + 1, at);
    return from + 2;
  }

  static int bindLease(PreparedStatement s, LeaseGranted e) throws SQLException {
    s.setString(1, Sql.fit(e.lease().leaseId(), 512));
    s.setString(2, Sql.fit(e.lease().runnerId(), 256));
    s.setString(3, e.lease().kind().wireName());
    Sql.setInstant(s, 4, e.lease().expiresAt());
    Sql.setInstant(s, 5, e.lease().grantedAt());
    return 6;
  }

  /** Sorted, comma-separated (AgentConfig keeps them sorted). */
  static String capabilities(String agentId, AgentConfig config) {
    String joined = String.join(",", config.capabilities());
    if (joined.length() <= 4000) {
      return joined;
    }
    log.warn(
        "capabilities of agent {} exceed 4000 characters; the read model keeps a prefix", agentId);
    return joined.substring(0, Math.max(0, joined.lastIndexOf(',', 4000)));
  }
}
