package dev.rota.cluster.readmodel;

import dev.rota.core.model.AgentSummary;
import dev.rota.core.pool.BacklogGroup;
import dev.rota.core.scheduling.AgentSchedule;
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
 * Queries on the read model: coordinator start-up, lease rescue, admin listings, stats and the pool
 * scaler. Every method blocks on JDBC: call it from a blocking dispatcher (e.g. {@code
 * DispatcherSelector.blocking()}), never on an actor's thread. Failures are {@link
 * ReadModelException}s.
 *
 * <p>The read model is written in the transaction of the events (decision 27), yet it is a view:
 * the entities stay the authority (a claim, a redrive or an expiry is always decided by the agent
 * itself).
 */
public final class ReadModel {
  /** The columns {@link #scheduleRow} reads, in its order (it reads them by position). */
  private static final String SCHEDULE_COLUMNS =
      "agent_id, capabilities, priority, unread, oldest_unread_at, last_activated_at,"
          + " min_activation_interval_seconds, lease_id, paused, snoozed_until, next_fire_at,"
          + " seq_nr";

  /** A partition's rows in agent order, found by {@code agent_schedule_partition_idx}. */
  static final String LOAD_PARTITION =
      "select "
          + SCHEDULE_COLUMNS
          + " from agent_schedule where partition_id = ? order by agent_id";

  private final DataSource dataSource;
  private final ReadQueries queries;
  private final ScheduleRanks ranks;
  private final RowRebuild rebuild;

  public ReadModel(DataSource dataSource) {
    this.dataSource = dataSource;
    this.queries = new ReadQueries(dataSource);
    this.ranks = new ScheduleRanks(queries);
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
        LOAD_PARTITION,
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

  /** Leases expired before {@code before}, oldest first, at most {@code limit}. Scans the rows. */
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

  /**
   * Agents that owe others sends or replies (their outbox is not empty, also after they were
   * deregistered) and whose row has not changed since {@code before}: an agent delivering right now
   * is left alone. At most {@code limit}, least recently changed first. Scans the rows.
   */
  public List<String> agentsOwing(Instant before, int limit) {
    return query(
        "agentsOwing",
        OwedAfterDelete.AGENTS_OWING,
        s -> {
          Sql.setInstant(s, 1, before);
          Sql.setInstant(s, 2, before);
          s.setInt(3, limit);
        },
        rs -> {
          List<String> agents = new ArrayList<>();
          while (rs.next()) {
            agents.add(rs.getString("agent_id"));
          }
          return agents;
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
   * How many agents of a capability set stand ahead of one in the inbox order, among those the rule
   * could pick now ({@link ScheduleRanks#aheadInInbox}).
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
    return ranks.aheadInInbox(agentId, capabilities, unread, oldestUnreadAt, priority, now);
  }

  /**
   * How many agents of a capability set stand ahead of one in the staleness order, among those the
   * rule could pick now ({@link ScheduleRanks#aheadInStaleness}).
   *
   * @param lastActivatedAt null when the agent was never activated
   */
  public long aheadInStaleness(
      String agentId, String capabilities, Instant lastActivatedAt, Instant now) {
    return ranks.aheadInStaleness(agentId, capabilities, lastActivatedAt, now);
  }

  /** Events the read model skipped because it could not apply them (rota_skipped_event). */
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
    return deadLetters(agentIdOrNull, null, limit);
  }

  /**
   * The newest dead letters, of one agent (by its key) or of every agent of one tenant, or of all
   * when both are null.
   */
  public List<DeadLetterRow> deadLetters(String agentIdOrNull, String tenantOrNull, int limit) {
    return DeadLetterQuery.newest(queries, agentIdOrNull, tenantOrNull, limit);
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
   * runner hold several, as in {@link #leaseOf}). Scans every agent row (decision 129).
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

  /**
   * Every tenant that has agents, by name ({@link TenantQuery#tenants}). Scans every agent row,
   * like {@link #stats}.
   */
  public Map<String, TenantRow> tenants() {
    return TenantQuery.tenants(queries);
  }

  /** How many agents {@code tenant} has. */
  public long agentsOfTenant(String tenant) {
    return TenantQuery.agentsOf(queries, tenant);
  }

  /** The kind ({@code inbox}, {@code exploration}, ...) of every held lease, by runner. */
  public Map<String, String> leaseKindsByRunner() {
    return query(
        "leaseKindsByRunner",
        BacklogQuery.LEASE_KINDS,
        s -> s.setFetchSize(1000),
        BacklogQuery::readLeaseKinds);
  }

  /** What retention removed from the journal (decision 124). */
  public JournalRetained journalRetained() {
    return JournalRetained.read(queries);
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
   * A row of {@link #SCHEDULE_COLUMNS}, read by position: a coordinator's load reads a million of
   * them, and looking each column up by name is a visible share of a million-agent restart's CPU.
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

  private <T> T query(
      String what, String sql, ReadQueries.Binder binder, ReadQueries.Reader<T> reader) {
    return queries.query(what, sql, binder, reader);
  }
}
