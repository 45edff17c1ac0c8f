package dev.rota.cluster.readmodel;

import dev.rota.cluster.agent.AgentEvents.Event;
import dev.rota.cluster.readmodel.ScheduleWrite.Registration;
import dev.rota.core.model.DeadLetter;
import dev.rota.core.model.Notification;
import dev.rota.core.model.Partitions;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Applies a group of agent events to {@code agent_schedule}, {@code dead_letter} and {@code
 * rota_counter} on one connection, inside the caller's transaction (the journal's, or the one-time
 * catch-up's). Plain SQL that H2 and PostgreSQL both run: every change of an agent's row is an
 * {@code UPDATE ... WHERE seq_nr < ?} (or a {@code DELETE}), so an event that is not newer than the
 * row changes nothing, and its dead letters and counts are skipped with it. Only a registration
 * inserts, after its update found no row; on PostgreSQL it inserts first ({@code ON CONFLICT DO
 * NOTHING}: a new agent, the usual case, costs one statement instead of an update, an existence
 * query and an insert) and updates only when the agent has a row.
 *
 * <p>A group is written with as few statements and round trips as its meaning allows: each agent's
 * events are folded into as few statements as give the same row ({@link WritePlan}), and the
 * statements go in rounds (the first of every agent, then the second, ...), each round as one JDBC
 * batch per statement, so an agent's updates keep their order. A group commits whole with its
 * events, so a row is never between the first and the last event of a group.
 *
 * <p>Rows of one agent are written only by the node that hosts it, and counter rows are keyed by
 * the writer's slot (or partition), so no two transactions race on a row: an update that finds no
 * row can insert without an upsert.
 *
 * <p>The guard cannot see past a deregistration, which deletes the row: applying an agent's events
 * from before it again would bring the row back. The journal applies each event once, in its own
 * transaction; the catch-up ({@link ReadModelCatchUp}) applies an agent's whole tail in order, so a
 * deregistration it brings back is deleted again by the same tail.
 */
final class AgentScheduleWriter implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(AgentScheduleWriter.class);

  /** One event of a group. */
  record Item(String agentId, long seqNr, Event event) {}

  private static final String INSERT_DEAD_LETTER =
      "insert into dead_letter (id, agent_id, notification_id, type, payload, attempts, reason,"
          + " dead_at) values (?, ?, ?, ?, ?, ?, ?, ?)";

  /** Agent ids per existence query of registrations that found no row. */
  private static final int EXISTS_CHUNK = 100;

  private final Connection connection;
  private final int partitions;
  private final Map<String, PreparedStatement> statements = new HashMap<>();
  private final int counterSlot;
  private final CounterBatch counters = new CounterBatch();
  private final WritePlan plan;
  private final List<Registration> unmatchedRegistrations = new ArrayList<>();
  private final List<Registration> conflictingRegistrations = new ArrayList<>();

  /**
   * @param partitions the partition count, for each agent row's {@code partition_id} and the
   *     counter rows (one per partition) its counts go to
   */
  AgentScheduleWriter(Connection connection, int partitions) throws SQLException {
    this(connection, partitions, -1);
  }

  /**
   * @param counterSlot the one counter row per counter that this writer adds to, or -1 for the rows
   *     of the agents' partitions; readers sum the rows of a counter, whatever their key
   */
  AgentScheduleWriter(Connection connection, int partitions, int counterSlot) throws SQLException {
    this.connection = connection;
    this.partitions = partitions;
    this.counterSlot = counterSlot;
    this.plan =
        new WritePlan(this, "PostgreSQL".equals(connection.getMetaData().getDatabaseProductName()));
  }

  // ---- a group ----

  /**
   * Applies a group of events, in order per agent; counters are added by {@link #flushCounters}.
   */
  void applyGroup(List<Item> items) throws SQLException {
    Map<String, List<Item>> byAgent = new LinkedHashMap<>();
    for (Item item : items) {
      byAgent.computeIfAbsent(item.agentId(), id -> new ArrayList<>()).add(item);
    }
    List<List<ScheduleWrite>> plans = new ArrayList<>(byAgent.size());
    for (List<Item> agentItems : byAgent.values()) {
      plans.add(plan.of(agentItems));
    }
    for (int round = 0; ; round++) {
      Map<String, List<ScheduleWrite>> bySql = new LinkedHashMap<>();
      for (List<ScheduleWrite> agentPlan : plans) {
        if (round < agentPlan.size()) {
          ScheduleWrite write = agentPlan.get(round);
          bySql.computeIfAbsent(write.sql(), sql -> new ArrayList<>()).add(write);
        }
      }
      if (bySql.isEmpty()) {
        return;
      }
      for (Map.Entry<String, List<ScheduleWrite>> entry : bySql.entrySet()) {
        execute(entry.getKey(), entry.getValue());
      }
      updateConflictingRegistrations();
      insertUnmatchedRegistrations();
    }
  }

  private void execute(String sql, List<? extends ScheduleWrite> writes) throws SQLException {
    PreparedStatement s = statement(sql);
    if (writes.size() == 1) {
      ScheduleWrite write = writes.get(0);
      write.bind(s);
      settle(write, s.executeUpdate());
      return;
    }
    for (ScheduleWrite write : writes) {
      write.bind(s);
      s.addBatch();
    }
    int[] counts = s.executeBatch();
    for (int k = 0; k < writes.size(); k++) {
      settle(writes.get(k), counts[k]);
    }
  }

  private void settle(ScheduleWrite write, int rows) throws SQLException {
    // SUCCESS_NO_INFO: the driver ran it but cannot say; neither H2 nor PostgreSQL answer so.
    if (rows > 0 || rows == java.sql.Statement.SUCCESS_NO_INFO) {
      write.applied();
    } else {
      write.notApplied();
    }
  }

  // ---- registrations ----

  /** A registration's update found no row: it inserts one after this round, if none exists. */
  void registrationFoundNoRow(Registration registration) {
    unmatchedRegistrations.add(registration);
  }

  /** A registration's insert found a row (PostgreSQL): it resets it after this round. */
  void registrationFoundRow(Registration registration) {
    conflictingRegistrations.add(registration);
  }

  /** Registrations whose insert found a row: their guarded updates, one batch. */
  private void updateConflictingRegistrations() throws SQLException {
    if (conflictingRegistrations.isEmpty()) {
      return;
    }
    List<Registration> updates = new ArrayList<>(conflictingRegistrations);
    conflictingRegistrations.clear();
    execute(updates.get(0).sql(), updates);
  }

  /** Registrations whose update found no row: insert those that have none (one batch). */
  private void insertUnmatchedRegistrations() throws SQLException {
    if (unmatchedRegistrations.isEmpty()) {
      return;
    }
    Set<String> existing = new HashSet<>();
    for (int from = 0; from < unmatchedRegistrations.size(); from += EXISTS_CHUNK) {
      List<Registration> chunk =
          unmatchedRegistrations.subList(
              from, Math.min(unmatchedRegistrations.size(), from + EXISTS_CHUNK));
      StringBuilder sql =
          new StringBuilder("select agent_id from agent_schedule where agent_id in (");
      for (int k = 0; k < chunk.size(); k++) {
        sql.append(k == 0 ? "?" : ", ?");
      }
      try (PreparedStatement s = connection.prepareStatement(sql.append(')').toString())) {
        for (int k = 0; k < chunk.size(); k++) {
          s.setString(k + 1, chunk.get(k).agentId);
        }
        try (ResultSet rs = s.executeQuery()) {
          while (rs.next()) {
            existing.add(rs.getString(1));
          }
        }
      }
    }
    PreparedStatement insert = statement(ScheduleWrite.INSERT_AGENT);
    int batched = 0;
    for (Registration registration : unmatchedRegistrations) {
      if (existing.contains(registration.agentId)) {
        log.debug(
            "ignored registration #{} of agent {}: not newer than its row",
            registration.seqNr,
            registration.agentId);
        continue;
      }
      registration.bindInsert(insert);
      insert.addBatch();
      batched++;
    }
    if (batched > 0) {
      insert.executeBatch();
    }
    unmatchedRegistrations.clear();
  }

  /** Runs one statement of this transaction; the rows it changed. */
  int run(String sql, OwedAfterDelete.Params params) throws SQLException {
    PreparedStatement s = statement(sql);
    params.bind(s);
    return s.executeUpdate();
  }

  // ---- dead letters ----

  void insertDeadLetter(String agentId, DeadLetter dead) throws SQLException {
    // A notification can die again after a redrive; its row went with the redrive, but a stray
    // row must not stop the writer on a duplicate key.
    deleteDeadLetter(dead.id());
    Notification n = dead.notification();
    PreparedStatement s = statement(INSERT_DEAD_LETTER);
    s.setString(1, dead.id());
    s.setString(2, agentId);
    s.setString(3, n.notificationId());
    s.setString(4, Sql.fit(n.type(), 256));
    s.setString(5, n.payload() == null ? null : n.payload().toString());
    s.setInt(6, n.attempts());
    s.setString(7, Sql.fit(dead.reason(), 2000));
    Sql.setInstant(s, 8, dead.deadAt());
    s.executeUpdate();
  }

  void deleteDeadLetter(String deadLetterId) throws SQLException {
    PreparedStatement s = statement("delete from dead_letter where id = ?");
    s.setString(1, deadLetterId);
    s.executeUpdate();
  }

  void deleteDeadLettersOf(String agentId) throws SQLException {
    PreparedStatement s = statement("delete from dead_letter where agent_id = ?");
    s.setString(1, agentId);
    s.executeUpdate();
  }

  // ---- counters ----

  /** Counts for the agent's event that changed its row: in this writer's slot, or its partition. */
  void count(String agentId, Counter counter, long n) {
    counters.add(counterSlot >= 0 ? counterSlot : partitionOf(agentId), counter, n);
  }

  int partitionOf(String agentId) {
    return Partitions.of(agentId, partitions);
  }

  /** Adds this transaction's counts to their counter rows ({@link CounterBatch#flush}). */
  void flushCounters() throws SQLException {
    counters.flush(this::statement);
  }

  private PreparedStatement statement(String sql) throws SQLException {
    PreparedStatement statement = statements.get(sql);
    if (statement == null) {
      statement = connection.prepareStatement(sql);
      statements.put(sql, statement);
    }
    return statement;
  }

  @Override
  public void close() throws SQLException {
    SQLException failure = null;
    for (PreparedStatement statement : statements.values()) {
      try {
        statement.close();
      } catch (SQLException e) {
        failure = failure == null ? e : failure;
      }
    }
    statements.clear();
    if (failure != null) {
      throw failure;
    }
  }
}
