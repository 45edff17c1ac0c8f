package dev.rota.cluster.readmodel;

import dev.rota.core.model.AgentSummary;
import dev.rota.core.pool.BacklogGroup;
import dev.rota.core.scheduling.AgentSchedule;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import javax.sql.DataSource;

/**
 * Queries on the read model the projection keeps: coordinator start-up, lease rescue, admin
 * listings, stats and the pool scaler. Every method blocks on JDBC: call it from a blocking
 * dispatcher (e.g. {@code DispatcherSelector.blocking()}), never on an actor's thread. Failures are
 * {@link ReadModelException}s.
 *
 * <p>The read model trails the entities by the projection's lag; the entities stay the authority (a
 * claim, a redrive or an expiry is always decided by the agent itself).
 */
public final class ReadModel {
  /** The columns {@link #scheduleRow} reads, in its order (it reads them by position). */
  private static final String SCHEDULE_COLUMNS =
      "agent_id, capabilities, priority, unread, oldest_unread_at, last_activated_at,"
          + " min_activation_interval_seconds, lease_id, paused, snoozed_until, next_fire_at,"
          + " seq_nr";

  private final DataSource dataSource;
  private final RowRebuild rebuild;

  public ReadModel(DataSource dataSource) {
    this.dataSource = dataSource;
    this.rebuild = new RowRebuild(dataSource);
  }

  /** Agents whose rows a skipped event left to rebuild from the entity, at most {@code limit}. */
  public List<String> rowsToRebuild(int limit) {
    try {
      return rebuild.pending(limit);
    } catch (SQLException e) {
      throw new ReadModelException("read model query rowsToRebuild failed", e);
    }
  }

  /**
   * Rewrites an agent's row from its entity's answer as of event {@code seqNr}; false when the row
   * already reflects a newer event (it stays marked). See {@link RowRebuild}.
   */
  public boolean rebuildRow(AgentSummary agent, long seqNr, Instant at) {
    try {
      return rebuild.rewrite(agent, seqNr, at);
    } catch (SQLException e) {
      throw new ReadModelException("rebuilding the row of agent " + agent.agentId() + " failed", e);
    }
  }

  /**
   * Every agent of one partition with its sequence number, for a coordinator's index. Agents with
   * the same capabilities share one set (a million rows, a handful of sets).
   */
  public List<ScheduleRow> loadPartition(int partition) {
    return query(
        "loadPartition(" + partition + ")",
        "select "
            + SCHEDULE_COLUMNS
            + " from agent_schedule where partition_id = ? order by agent_id",
        s -> {
          s.setInt(1, partition);
          s.setFetchSize(1000);
        },
        rs -> {
          List<ScheduleRow> rows = new ArrayList<>();
          Map<String, Set<String>> capabilitySets = new HashMap<>();
          while (rs.next()) {
            rows.add(scheduleRow(rs, capabilitySets));
          }
          return rows;
        });
  }

  /** Leases whose expiry is before {@code before}, oldest first, at most {@code limit}. */
  public List<ExpiredLease> expiredLeases(Instant before, int limit) {
    return query(
        "expiredLeases",
        "select agent_id, lease_id, lease_expires_at from agent_schedule"
            + " where lease_expires_at < ? order by lease_expires_at, agent_id limit ?",
        s -> {
          Sql.setInstant(s, 1, before);
          s.setInt(2, limit);
        },
        rs -> {
          List<ExpiredLease> leases = new ArrayList<>();
          while (rs.next()) {
            leases.add(
                new ExpiredLease(
                    rs.getString("agent_id"),
                    rs.getString("lease_id"),
                    Sql.getInstant(rs, "lease_expires_at")));
          }
          return leases;
        });
  }

  /** Agent and inbox totals over the whole read model, and the counters. Scans every agent row. */
  public ReadModelStats stats(Instant now) {
    String sql =
        "select count(*) as registered,"
            + " coalesce(sum(case when unread > 0 then 1 else 0 end), 0) as with_inbox,"
            + " coalesce(sum(case when lease_id is not null then 1 else 0 end), 0) as leased,"
            + " coalesce(sum(case when paused then 1 else 0 end), 0) as paused,"
            + " coalesce(sum(case when snoozed_until > ? then 1 else 0 end), 0) as snoozed,"
            + " coalesce(sum(unread), 0) as unread,"
            + " min(oldest_unread_at) as oldest_unread_at,"
            + " coalesce(sum(dead_letters), 0) as dead_letters,"
            + " min(coalesce(last_activated_at, registered_at, updated_at)) as stalest_at"
            + " from agent_schedule";
    Map<String, Long> counters = counters();
    long skippedEvents = skippedEvents();
    return query(
        "stats",
        sql,
        s -> Sql.setInstant(s, 1, now),
        rs -> {
          rs.next();
          return new ReadModelStats(
              now,
              rs.getLong("registered"),
              rs.getLong("with_inbox"),
              rs.getLong("leased"),
              rs.getLong("paused"),
              rs.getLong("snoozed"),
              rs.getLong("unread"),
              Sql.getInstant(rs, "oldest_unread_at"),
              rs.getLong("dead_letters"),
              Sql.getInstant(rs, "stalest_at"),
              counters,
              skippedEvents);
        });
  }

  /**
   * How many agents of a capability set stand ahead of one in the inbox order (most unread, oldest
   * unread, higher priority, agent id), among those the rule could pick now: unread work, not
   * leased, paused or snoozed. As fresh as the read model.
   *
   * @param capabilities the set's key: sorted, comma-separated
   */
  public long aheadInInbox(
      String agentId,
      String capabilities,
      int unread,
      Instant oldestUnreadAt,
      int priority,
      Instant now) {
    String sql =
        "select count(*) from agent_schedule where capabilities = ? and agent_id <> ?"
            + " and unread > 0 and lease_id is null and not paused"
            + " and (snoozed_until is null or snoozed_until <= ?)"
            + " and (unread > ? or (unread = ? and (oldest_unread_at < ?"
            + " or (oldest_unread_at = ? and (priority > ? or (priority = ? and agent_id < ?))))))";
    return query(
        "inbox rank",
        sql,
        s -> {
          s.setString(1, capabilities);
          s.setString(2, agentId);
          Sql.setInstant(s, 3, now);
          s.setInt(4, unread);
          s.setInt(5, unread);
          Sql.setInstant(s, 6, oldestUnreadAt);
          Sql.setInstant(s, 7, oldestUnreadAt);
          s.setInt(8, priority);
          s.setInt(9, priority);
          s.setString(10, agentId);
        },
        rs -> {
          rs.next();
          return rs.getLong(1);
        });
  }

  /**
   * How many agents of a capability set stand ahead of one in the staleness order (never activated
   * first, then oldest last activation, then agent id), among those the rule could pick now: no
   * unread work, not leased, paused or snoozed, and past their minimum interval.
   *
   * @param lastActivatedAt null when the agent was never activated
   */
  public long aheadInStaleness(
      String agentId, String capabilities, Instant lastActivatedAt, Instant now) {
    String before =
        lastActivatedAt == null
            ? " and last_activated_at is null and agent_id < ?"
            : " and (last_activated_at is null or last_activated_at < ?"
                + " or (last_activated_at = ? and agent_id < ?))";
    String sql =
        "select last_activated_at, min_activation_interval_seconds from agent_schedule"
            + " where capabilities = ? and agent_id <> ? and unread = 0 and lease_id is null"
            + " and not paused and (snoozed_until is null or snoozed_until <= ?)"
            + before;
    return query(
        "staleness rank",
        sql,
        s -> {
          s.setString(1, capabilities);
          s.setString(2, agentId);
          Sql.setInstant(s, 3, now);
          if (lastActivatedAt == null) {
            s.setString(4, agentId);
          } else {
            Sql.setInstant(s, 4, lastActivatedAt);
            Sql.setInstant(s, 5, lastActivatedAt);
            s.setString(6, agentId);
          }
        },
        rs -> {
          // The minimum interval is per agent: checked here rather than in dialect-specific SQL.
          long ahead = 0;
          while (rs.next()) {
            Instant last = Sql.getInstant(rs, "last_activated_at");
            long interval = rs.getLong("min_activation_interval_seconds");
            if (last == null || interval <= 0 || !last.plusSeconds(interval).isAfter(now)) {
              ahead++;
            }
          }
          return ahead;
        });
  }

  /** Events the projection skipped because it could not apply them (rota_skipped_event). */
  public long skippedEvents() {
    return query(
        "skipped events",
        "select count(*) as skipped from rota_skipped_event",
        s -> {},
        rs -> {
          rs.next();
          return rs.getLong("skipped");
        });
  }

  /** Every {@link Counter} by key, summed over partitions; 0 for one never counted. */
  public Map<String, Long> counters() {
    return query(
        "counters",
        "select name, sum(total) as total from rota_counter group by name",
        s -> {},
        rs -> {
          Map<String, Long> counters = new HashMap<>();
          for (Counter counter : Counter.values()) {
            counters.put(counter.key(), 0L);
          }
          while (rs.next()) {
            counters.put(rs.getString("name"), rs.getLong("total"));
          }
          return counters;
        });
  }

  /** Dead letters, newest first; of one agent, or of all when {@code agentIdOrNull} is null. */
  public List<DeadLetterRow> deadLetters(String agentIdOrNull, int limit) {
    String columns =
        "select id, agent_id, notification_id, type, payload, attempts, reason, dead_at"
            + " from dead_letter";
    String sql =
        agentIdOrNull == null
            ? columns + " order by dead_at desc, id limit ?"
            : columns + " where agent_id = ? order by dead_at desc, id limit ?";
    return query(
        "deadLetters",
        sql,
        s -> {
          int i = 1;
          if (agentIdOrNull != null) {
            s.setString(i++, agentIdOrNull);
          }
          s.setInt(i, limit);
        },
        rs -> {
          List<DeadLetterRow> rows = new ArrayList<>();
          while (rs.next()) {
            rows.add(
                new DeadLetterRow(
                    rs.getString("id"),
                    rs.getString("agent_id"),
                    rs.getString("notification_id"),
                    rs.getString("type"),
                    rs.getString("payload"),
                    rs.getInt("attempts"),
                    rs.getString("reason"),
                    Sql.getInstant(rs, "dead_at")));
          }
          return rows;
        });
  }

  /** The lease the runner holds, if any (the latest-expiring one, should it hold several). */
  public Optional<String> leaseOf(String runnerId) {
    return query(
        "leaseOf",
        "select lease_id from agent_schedule where lease_runner_id = ?"
            + " order by lease_expires_at desc limit 1",
        s -> s.setString(1, runnerId),
        rs -> rs.next() ? Optional.of(rs.getString(1)) : Optional.<String>empty());
  }

  /**
   * Every held lease by the runner holding it, in one query (the latest-expiring one, should a
   * runner hold several, as in {@link #leaseOf}). Scans the leased rows.
   */
  public Map<String, String> leasesByRunner() {
    return query(
        "leasesByRunner",
        "select lease_runner_id, lease_id from agent_schedule"
            + " where lease_id is not null and lease_runner_id is not null"
            + " order by lease_expires_at, agent_id",
        s -> s.setFetchSize(1000),
        rs -> {
          Map<String, String> leases = new HashMap<>();
          while (rs.next()) {
            leases.put(rs.getString("lease_runner_id"), rs.getString("lease_id"));
          }
          return leases;
        });
  }

  /**
   * The unpaused agents grouped by required capability set and minimum activation interval, for the
   * pool scaler. Scans every agent row, like {@link #stats}.
   */
  public List<BacklogGroup> backlog(Instant now) {
    return query(
        "backlog",
        BacklogQuery.GROUPS,
        s -> BacklogQuery.bindGroups(s, now),
        BacklogQuery::readGroups);
  }

  /** The kind ({@code inbox}, {@code exploration}, ...) of every held lease, by runner. */
  public Map<String, String> leaseKindsByRunner() {
    return query(
        "leaseKindsByRunner",
        BacklogQuery.LEASE_KINDS,
        s -> s.setFetchSize(1000),
        BacklogQuery::readLeaseKinds);
  }

  /**
   * The journal's highest ordering (0 when empty): an event feed that starts after it shows the
   * events written from now on. Reads the journal table, not the read model.
   */
  public long journalHead() {
    return query(
        "journalHead",
        "select coalesce(max(ordering), 0) from event_journal",
        s -> {},
        rs -> rs.next() ? rs.getLong(1) : 0L);
  }

  /**
   * How far the read-model projection trails the journal: events of the agent tags it has not
   * applied yet, and the write time of the oldest of them (null when none). One range scan of the
   * tag index per partition, over the unprojected events only.
   *
   * @param projectionName the projection's name in the offset store
   * @param tags the projection keys, one tag per partition
   */
  public ProjectionLag projectionLag(String projectionName, List<String> tags) {
    try (Connection connection = dataSource.getConnection()) {
      connection.setAutoCommit(false);
      try {
        Map<String, Long> offsets = new HashMap<>();
        try (PreparedStatement statement =
            connection.prepareStatement(
                "select projection_key, current_offset from pekko_projection_offset_store"
                    + " where projection_name = ?")) {
          statement.setString(1, projectionName);
          try (ResultSet rs = statement.executeQuery()) {
            while (rs.next()) {
              offsets.put(rs.getString(1), parseOffset(rs.getString(2)));
            }
          }
        }
        long events = 0;
        Long oldest = null;
        try (PreparedStatement statement =
            connection.prepareStatement(
                "select count(*), min(j.write_timestamp) from event_tag t"
                    + " join event_journal j on j.ordering = t.event_id"
                    + " where t.tag = ? and t.event_id > ?")) {
          for (String tag : tags) {
            statement.setString(1, tag);
            statement.setLong(2, offsets.getOrDefault(tag, 0L));
            try (ResultSet rs = statement.executeQuery()) {
              if (rs.next()) {
                events += rs.getLong(1);
                long min = rs.getLong(2);
                if (!rs.wasNull() && (oldest == null || min < oldest)) {
                  oldest = min;
                }
              }
            }
          }
        }
        return new ProjectionLag(events, oldest == null ? null : Instant.ofEpochMilli(oldest));
      } finally {
        connection.rollback();
      }
    } catch (SQLException e) {
      throw new ReadModelException("read model query projectionLag failed", e);
    }
  }

  private static long parseOffset(String offset) {
    try {
      return Long.parseLong(offset);
    } catch (NumberFormatException e) {
      return 0L;
    }
  }

  /**
   * @param events journal events the projection has not applied yet
   * @param oldestWrittenAt when the oldest of them was written, null when there is none
   */
  public record ProjectionLag(long events, Instant oldestWrittenAt) {
    /** How long the oldest unapplied event has waited at {@code now}; zero when none. */
    public Duration age(Instant now) {
      if (oldestWrittenAt == null || oldestWrittenAt.isAfter(now)) {
        return Duration.ZERO;
      }
      return Duration.between(oldestWrittenAt, now);
    }
  }

  /**
   * A row of {@link #SCHEDULE_COLUMNS}, read by position: a coordinator's load reads a million of
   * them, and a lookup by name per column was 7 % of a million-agent restart's CPU.
   */
  private static ScheduleRow scheduleRow(ResultSet rs, Map<String, Set<String>> capabilitySets)
      throws SQLException {
    String capabilities = rs.getString(2);
    AgentSchedule schedule =
        new AgentSchedule(
            rs.getString(1),
            capabilities == null || capabilities.isEmpty()
                ? Set.of()
                : capabilitySets.computeIfAbsent(
                    capabilities, c -> Set.copyOf(Arrays.asList(c.split(",")))),
            rs.getInt(3),
            rs.getInt(4),
            Sql.getInstant(rs, 5),
            Sql.getInstant(rs, 6),
            Duration.ofSeconds(rs.getLong(7)),
            rs.getString(8) != null,
            rs.getBoolean(9),
            Sql.getInstant(rs, 10),
            Sql.getInstant(rs, 11));
    return new ScheduleRow(schedule, rs.getLong(12));
  }

  @FunctionalInterface
  private interface Binder {
    void bind(PreparedStatement statement) throws SQLException;
  }

  @FunctionalInterface
  private interface Reader<T> {
    T read(ResultSet rs) throws SQLException;
  }

  private <T> T query(String what, String sql, Binder binder, Reader<T> reader) {
    try (Connection connection = dataSource.getConnection()) {
      // Read-only and without autocommit, so PostgreSQL streams large results by fetch size.
      connection.setAutoCommit(false);
      try (PreparedStatement statement = connection.prepareStatement(sql)) {
        binder.bind(statement);
        try (ResultSet rs = statement.executeQuery()) {
          return reader.read(rs);
        }
      } finally {
        connection.rollback();
      }
    } catch (SQLException e) {
      throw new ReadModelException("read model query " + what + " failed", e);
    }
  }
}
