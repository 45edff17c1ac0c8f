package dev.rota.http;

import dev.rota.core.model.Ids;
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
import java.util.List;
import javax.sql.DataSource;

/**
 * The agent directory backed by the {@code agent_schedule} read model (one row per agent, written
 * by the projection). Pages by keyset, not offset: the cursor carries the sort key of the last row,
 * so a page never repeats or skips an agent whose row did not change meanwhile, and deep pages cost
 * the same as the first. The cursor is opaque (base64url) and tied to its order.
 *
 * <p>Orders: {@code stalest} = {@code last_activated_at} ascending, never-activated first, then
 * {@code agent_id}; {@code inbox} = {@code unread} descending, {@code oldest_unread_at} ascending
 * (none last), then {@code agent_id}. Portable SQL for PostgreSQL and H2.
 */
public final class JdbcAgentDirectory implements AgentDirectory {
  private static final String SELECT =
      "SELECT agent_id, unread, oldest_unread_at, last_activated_at FROM agent_schedule ";

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
    try (Connection connection = dataSource.getConnection();
        PreparedStatement statement = prepare(connection, order, after, limit + 1);
        ResultSet rs = statement.executeQuery()) {
      while (rs.next()) {
        rows.add(
            new Key(
                order,
                rs.getString("agent_id"),
                rs.getInt("unread"),
                instant(rs, "oldest_unread_at"),
                instant(rs, "last_activated_at")));
      }
    } catch (SQLException e) {
      throw new UnavailableException("cannot read agent_schedule: " + e.getMessage(), e);
    }
    boolean more = rows.size() > limit;
    List<Key> page = more ? rows.subList(0, limit) : rows;
    return new AgentPage(
        page.stream().map(Key::agentId).toList(), more ? page.get(limit - 1).encode() : null);
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
