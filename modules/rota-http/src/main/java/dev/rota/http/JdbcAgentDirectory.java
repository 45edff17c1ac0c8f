package dev.rota.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import dev.rota.core.model.ActivationKind;
import dev.rota.core.model.AgentConfig;
import dev.rota.core.model.AgentSummary;
import dev.rota.core.model.Ids;
import dev.rota.core.model.Lease;
import dev.rota.core.model.Schedule;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * The agent directory backed by the {@code agent_schedule} read model (one row per agent, written
 * by the projection), which also describes each listed agent from its row, so the listing asks no
 * entity for it. Pages by keyset, not offset: the cursor carries the sort key of the last row, so a
 * page never repeats or skips an agent whose row did not change meanwhile, and deep pages cost the
 * same as the first. The cursor is opaque (base64url) and tied to its order.
 *
 * <p>Orders: {@code stalest} = {@code last_activated_at} ascending, never-activated first, then
 * {@code agent_id}; {@code inbox} = {@code unread} descending, {@code oldest_unread_at} ascending
 * (none last), then {@code agent_id}. Portable SQL for PostgreSQL and H2.
 */
public final class JdbcAgentDirectory implements AgentDirectory {
  private static final String SELECT =
      "SELECT agent_id, unread, oldest_unread_at, last_activated_at, config, activation_count,"
          + " dead_letters, lease_runner_id, lease_kind, lease_granted_at, lease_expires_at,"
          + " paused, snoozed_until, next_fire_at FROM agent_schedule ";

  /** How {@code agent_schedule.config} holds an agent's configuration (the projection's JSON). */
  private static final ObjectMapper CONFIG_JSON =
      JsonMapper.builder().addModule(new JavaTimeModule()).build();

  private static final String STALEST_ORDER =
      " ORDER BY last_activated_at ASC NULLS FIRST, agent_id ASC LIMIT ?";
  private static final String INBOX_ORDER =
      " ORDER BY unread DESC, oldest_unread_at ASC NULLS LAST, agent_id ASC LIMIT ?";

  private final DataSource dataSource;

  public JdbcAgentDirectory(DataSource dataSource) {
    this.dataSource = dataSource;
  }

  @Override
  public AgentPage list(Order order, int limit, String afterCursor) {
    if (limit < 1) {
      throw new IllegalArgumentException("limit must be at least 1, not " + limit);
    }
    Key after = afterCursor == null ? null : Key.decode(order, afterCursor);
    List<Key> rows = new ArrayList<>(limit + 1);
    Map<String, AgentSummary> described = new HashMap<>();
    try (Connection connection = dataSource.getConnection();
        PreparedStatement statement = prepare(connection, order, after, limit + 1);
        ResultSet rs = statement.executeQuery()) {
      while (rs.next()) {
        Key key =
            new Key(
                order,
                rs.getString("agent_id"),
                rs.getInt("unread"),
                instant(rs, "oldest_unread_at"),
                instant(rs, "last_activated_at"));
        rows.add(key);
        if (rows.size() <= limit) {
          summary(rs, key).ifPresent(agent -> described.put(agent.agentId(), agent));
        }
      }
    } catch (SQLException e) {
      throw new UnavailableException("cannot read agent_schedule: " + e.getMessage(), e);
    }
    boolean more = rows.size() > limit;
    List<Key> page = more ? rows.subList(0, limit) : rows;
    return new AgentPage(
        page.stream().map(Key::agentId).toList(),
        more ? page.get(limit - 1).encode() : null,
        described);
  }

  /**
   * The agent as its row holds it; empty for a row without its configuration (written before the
   * read model kept it, or a placeholder of a skipped event), whose entity is asked instead.
   *
   * <p>The row keeps the earliest unserved fire over the agent's schedules, not one per schedule:
   * the schedule that fires then shows it, every other its next fire from now.
   */
  private static Optional<AgentSummary> summary(ResultSet rs, Key key) throws SQLException {
    String json = rs.getString("config");
    if (json == null) {
      return Optional.empty();
    }
    AgentConfig config;
    try {
      config = CONFIG_JSON.readValue(json, AgentConfig.class);
    } catch (JsonProcessingException e) {
      return Optional.empty();
    }
    Instant now = Instant.now();
    Instant nextFire = instant(rs, "next_fire_at");
    Map<String, Instant> nextFires = new HashMap<>();
    for (Schedule schedule : config.schedules()) {
      Instant at =
          nextFire != null && nextFire.equals(schedule.nextFireAfter(nextFire.minusSeconds(1)))
              ? nextFire
              : schedule.nextFireAfter(now);
      if (at != null) {
        nextFires.put(schedule.name(), at);
      }
    }
    String runnerId = rs.getString("lease_runner_id");
    ActivationKind kind = ActivationKind.fromWire(rs.getString("lease_kind"));
    if (runnerId != null && kind == null) {
      return Optional.empty();
    }
    // The holder, kind and times of the lease: what a listing shows of it (never its id).
    Lease lease =
        runnerId == null
            ? null
            : new Lease(
                null,
                runnerId,
                kind,
                0,
                0,
                instant(rs, "lease_granted_at"),
                instant(rs, "lease_expires_at"),
                0,
                List.of());
    return Optional.of(
        new AgentSummary(
            key.agentId(),
            true,
            config,
            key.unread(),
            key.oldestUnreadAt(),
            rs.getInt("dead_letters"),
            lease,
            key.lastActivatedAt(),
            rs.getLong("activation_count"),
            instant(rs, "snoozed_until"),
            rs.getBoolean("paused"),
            List.of(),
            nextFires));
  }

  private static PreparedStatement prepare(Connection connection, Order order, Key after, int fetch)
      throws SQLException {
    List<Object> params = new ArrayList<>();
    String where = after == null ? "" : "WHERE " + after.condition(params);
    String sql = SELECT + where + (order == Order.STALEST ? STALEST_ORDER : INBOX_ORDER);
    PreparedStatement statement = connection.prepareStatement(sql);
    try {
      int i = 1;
      for (Object param : params) {
        statement.setObject(i++, param);
      }
      statement.setInt(i, fetch);
      return statement;
    } catch (SQLException | RuntimeException e) {
      statement.close();
      throw e;
    }
  }

  private static Instant instant(ResultSet rs, String column) throws SQLException {
    OffsetDateTime value = rs.getObject(column, OffsetDateTime.class);
    return value == null ? null : value.toInstant();
  }

  /** The sort key of a row; as a cursor, the position after which the next page starts. */
  private record Key(
      Order order, String agentId, int unread, Instant oldestUnreadAt, Instant lastActivatedAt) {

    /** Rows strictly after this key in its order; appends the parameters it uses. */
    String condition(List<Object> params) {
      if (order == Order.STALEST) {
        if (lastActivatedAt == null) {
          params.add(agentId);
          return "((last_activated_at IS NULL AND agent_id > ?) OR last_activated_at IS NOT NULL)";
        }
        params.add(utc(lastActivatedAt));
        params.add(utc(lastActivatedAt));
        params.add(agentId);
        return "(last_activated_at > ? OR (last_activated_at = ? AND agent_id > ?))";
      }
      params.add(unread);
      params.add(unread);
      if (oldestUnreadAt == null) {
        params.add(agentId);
        return "(unread < ? OR (unread = ? AND oldest_unread_at IS NULL AND agent_id > ?))";
      }
      params.add(utc(oldestUnreadAt));
      params.add(utc(oldestUnreadAt));
      params.add(agentId);
      return "(unread < ? OR (unread = ? AND (oldest_unread_at > ? OR oldest_unread_at IS NULL"
          + " OR (oldest_unread_at = ? AND agent_id > ?))))";
    }

    String encode() {
      String text =
          order == Order.STALEST
              ? "s\n" + text(lastActivatedAt) + "\n" + agentId
              : "i\n" + unread + "\n" + text(oldestUnreadAt) + "\n" + agentId;
      return Base64.getUrlEncoder()
          .withoutPadding()
          .encodeToString(text.getBytes(StandardCharsets.UTF_8));
    }

    static Key decode(Order order, String cursor) {
      try {
        String[] parts =
            new String(Base64.getUrlDecoder().decode(cursor), StandardCharsets.UTF_8)
                .split("\n", -1);
        if (order == Order.STALEST && parts.length == 3 && parts[0].equals("s")) {
          return new Key(order, agentId(parts[2]), 0, null, instantOf(parts[1]));
        }
        if (order == Order.INBOX && parts.length == 4 && parts[0].equals("i")) {
          int unread = Integer.parseInt(parts[1]);
          return new Key(order, agentId(parts[3]), unread, instantOf(parts[2]), null);
        }
      } catch (IllegalArgumentException | DateTimeParseException e) {
        // answered below: any malformed cursor gets the same message
      }
      throw new InvalidCursorException("not a cursor of the " + order.wireName() + " order");
    }

    private static String agentId(String value) {
      if (!Ids.isValidAgentId(value)) {
        throw new IllegalArgumentException("bad agent id");
      }
      return value;
    }

    private static String text(Instant instant) {
      return instant == null ? "" : instant.toString();
    }

    private static Instant instantOf(String text) {
      return text.isEmpty() ? null : Instant.parse(text);
    }

    private static OffsetDateTime utc(Instant instant) {
      return instant.atOffset(ZoneOffset.UTC);
    }
  }
}
