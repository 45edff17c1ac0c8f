package dev.rota.cluster.readmodel;

import com.fasterxml.jackson.core.JsonProcessingException;
import dev.rota.core.model.ActivationKind;
import dev.rota.core.model.AgentConfig;
import dev.rota.core.model.AgentSummary;
import dev.rota.core.model.Lease;
import dev.rota.core.model.Schedule;
import dev.rota.core.tenant.AgentKeys;
import dev.rota.core.tenant.Tenants;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * The agents of {@code agent_schedule} in the listing's orders, a page at a time, each described
 * from its row, so a listing asks no entity for it. Pages by keyset, not offset: a page starts
 * strictly after the sort key of the last row of the one before, so it never repeats or skips an
 * agent whose row did not change meanwhile, and deep pages cost the same as the first.
 *
 * <p>Orders: {@code STALEST} = {@code last_activated_at} ascending, never-activated first, then
 * {@code agent_id}; {@code INBOX} = {@code unread} descending, {@code oldest_unread_at} ascending
 * (none last), then {@code agent_id}. Portable SQL for PostgreSQL and H2. Blocks on JDBC; a failure
 * is a {@link ReadModelException}.
 */
public final class AgentListing {
  private static final String SELECT =
      "SELECT agent_id, unread, oldest_unread_at, last_activated_at, config, activation_count,"
          + " dead_letters, lease_runner_id, lease_kind, lease_granted_at, lease_expires_at,"
          + " paused, snoozed_until, next_fire_at FROM agent_schedule ";
  private static final String STALEST_ORDER =
      " ORDER BY last_activated_at ASC NULLS FIRST, agent_id ASC LIMIT ?";
  private static final String INBOX_ORDER =
      " ORDER BY unread DESC, oldest_unread_at ASC NULLS LAST, agent_id ASC LIMIT ?";

  /** The listing's orders. */
  public enum Order {
    STALEST,
    INBOX
  }

  /** A row's sort key: where it stands in an order; a page starts strictly after one. */
  public record Position(
      String agentId, int unread, Instant oldestUnreadAt, Instant lastActivatedAt) {}

  /**
   * One listed agent.
   *
   * @param summary the agent as its row holds it; empty for a row without its configuration (a
   *     placeholder of a skipped event), whose entity is to be asked instead
   */
  public record Row(Position position, Optional<AgentSummary> summary) {}

  private final ReadQueries queries;

  public AgentListing(DataSource dataSource) {
    this.queries = new ReadQueries(dataSource);
  }

  /**
   * At most {@code limit} rows of {@code tenant}'s agents in {@code order}, strictly after {@code
   * after} (null: the start). A tenant's rows are told by their keys ({@link AgentKeys}): the
   * default tenant's have no slash, another's start with its name and a slash.
   */
  public List<Row> page(String tenant, Order order, Position after, int limit) {
    List<Object> params = new ArrayList<>();
    String where;
    if (Tenants.DEFAULT.equals(tenant)) {
      where = "WHERE agent_id NOT LIKE '%/%'";
    } else {
      where = "WHERE agent_id LIKE ?";
      params.add(AgentKeys.likePattern(tenant));
    }
    if (after != null) {
      where += " AND " + condition(order, after, params);
    }
    String sql = SELECT + where + (order == Order.STALEST ? STALEST_ORDER : INBOX_ORDER);
    return queries.query(
        "listing",
        sql,
        s -> {
          int i = 1;
          for (Object param : params) {
            s.setObject(i++, param);
          }
          s.setInt(i, limit);
        },
        rs -> {
          List<Row> rows = new ArrayList<>(limit);
          while (rs.next()) {
            Position position =
                new Position(
                    rs.getString("agent_id"),
                    rs.getInt("unread"),
                    Sql.getInstant(rs, "oldest_unread_at"),
                    Sql.getInstant(rs, "last_activated_at"));
            rows.add(new Row(position, summary(rs, position)));
          }
          return rows;
        });
  }

  /** The default tenant's rows: the listing of a node without tenants. */
  public List<Row> page(Order order, Position after, int limit) {
    return page(Tenants.DEFAULT, order, after, limit);
  }

  /** Rows strictly after {@code after} in its order; appends the parameters it uses. */
  private static String condition(Order order, Position after, List<Object> params) {
    String agentId = after.agentId();
    if (order == Order.STALEST) {
      Instant last = after.lastActivatedAt();
      if (last == null) {
        params.add(agentId);
        return "((last_activated_at IS NULL AND agent_id > ?) OR last_activated_at IS NOT NULL)";
      }
      params.add(utc(last));
      params.add(utc(last));
      params.add(agentId);
      return "(last_activated_at > ? OR (last_activated_at = ? AND agent_id > ?))";
    }
    params.add(after.unread());
    params.add(after.unread());
    Instant oldest = after.oldestUnreadAt();
    if (oldest == null) {
      params.add(agentId);
      return "(unread < ? OR (unread = ? AND oldest_unread_at IS NULL AND agent_id > ?))";
    }
    params.add(utc(oldest));
    params.add(utc(oldest));
    params.add(agentId);
    return "(unread < ? OR (unread = ? AND (oldest_unread_at > ? OR oldest_unread_at IS NULL"
        + " OR (oldest_unread_at = ? AND agent_id > ?))))";
  }

  /**
   * The agent as its row holds it; empty for a row without its configuration, whose entity is asked
   * instead.
   *
   * <p>The row keeps the earliest unserved fire over the agent's schedules, not one per schedule:
   * the schedule that fires then shows it, every other its next fire from now.
   */
  private static Optional<AgentSummary> summary(ResultSet rs, Position position)
      throws SQLException {
    String json = rs.getString("config");
    if (json == null) {
      return Optional.empty();
    }
    AgentConfig config;
    try {
      config = ScheduleColumns.CONFIG_JSON.readValue(json, AgentConfig.class);
    } catch (JsonProcessingException e) {
      return Optional.empty();
    }
    Instant now = Instant.now();
    Instant nextFire = Sql.getInstant(rs, "next_fire_at");
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
                Sql.getInstant(rs, "lease_granted_at"),
                Sql.getInstant(rs, "lease_expires_at"),
                0,
                List.of());
    return Optional.of(
        new AgentSummary(
            position.agentId(),
            true,
            config,
            position.unread(),
            position.oldestUnreadAt(),
            rs.getInt("dead_letters"),
            lease,
            position.lastActivatedAt(),
            rs.getLong("activation_count"),
            Sql.getInstant(rs, "snoozed_until"),
            rs.getBoolean("paused"),
            List.of(),
            nextFires));
  }

  private static OffsetDateTime utc(Instant instant) {
    return instant.atOffset(ZoneOffset.UTC);
  }
}
