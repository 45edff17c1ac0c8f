package dev.rota.bench.seedsql;

import dev.rota.core.model.ActivationKind;
import dev.rota.core.model.RunnerMode;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * ADR-011's {@code RunnerCoordinator} as plain SQL on one runner's connection. A claim is a row
 * lock on the agent ({@code FOR UPDATE SKIP LOCKED}) held by the runner's open transaction for the
 * whole activation — the lease; {@link #complete} marks the carried notifications read, stamps the
 * agent and commits, which also releases the lock.
 *
 * <p>The inbox query aggregates every unread notification on every claim; that is the cost the
 * bench is there to show growing with the backlog.
 */
final class SeedSqlCoordinator {

  // GROUP BY cannot take FOR UPDATE itself, so the aggregate is a subquery and only the agent row
  // is locked; rows locked by other runners are skipped, the next-fullest inbox is taken.
  private static final String CLAIM_INBOX =
      """
      SELECT a.id, i.unread
      FROM (SELECT recipient_id, count(*) AS unread
            FROM notifications WHERE NOT read
            GROUP BY recipient_id) i
      JOIN agents a ON a.id = i.recipient_id
      ORDER BY i.unread DESC
      LIMIT 1
      FOR UPDATE OF a SKIP LOCKED
      """;

  private static final String LOAD_INBOX =
      "SELECT id, token FROM notifications WHERE recipient_id = ? AND NOT read";

  // Walks idx_agents_staleness from the front; locked agents (running elsewhere) are skipped.
  private static final String CLAIM_STALEST =
      """
      SELECT id FROM agents
      ORDER BY last_activated_at ASC NULLS FIRST
      LIMIT 1
      FOR UPDATE SKIP LOCKED
      """;

  private static final String MARK_READ = "UPDATE notifications SET read = TRUE WHERE id = ANY (?)";

  // clock_timestamp(), not now(): now() is the transaction's start, i.e. the claim time.
  private static final String STAMP_AGENT =
      """
      UPDATE agents
      SET last_activated_at = clock_timestamp(), activation_count = activation_count + 1
      WHERE id = ?
      """;

  /** A claim held by the connection's open transaction. */
  record Assignment(String agentId, ActivationKind kind, long[] notificationIds, long[] tokens) {}

  private final Connection connection;

  SeedSqlCoordinator(Connection connection) throws SQLException {
    this.connection = connection;
    connection.setAutoCommit(false);
  }

  /** ADR-011's {@code get_assignment(runner_id, mode)}; null (and no open lock) when no work. */
  Assignment assignment(RunnerMode mode) throws SQLException {
    Assignment assignment = null;
    if (mode.takesInbox()) {
      assignment = claimInbox();
    }
    if (assignment == null && mode.takesStaleness()) {
      assignment = claimStalest();
    }
    if (assignment == null) {
      connection.rollback();
    }
    return assignment;
  }

  private Assignment claimInbox() throws SQLException {
    String agentId;
    try (PreparedStatement claim = connection.prepareStatement(CLAIM_INBOX);
        ResultSet rs = claim.executeQuery()) {
      if (!rs.next()) {
        return null;
      }
      agentId = rs.getString(1);
    }
    List<Long> ids = new ArrayList<>();
    List<Long> tokens = new ArrayList<>();
    try (PreparedStatement load = connection.prepareStatement(LOAD_INBOX)) {
      load.setString(1, agentId);
      try (ResultSet rs = load.executeQuery()) {
        while (rs.next()) {
          ids.add(rs.getLong(1));
          long token = rs.getLong(2);
          if (!rs.wasNull()) {
            tokens.add(token);
          }
        }
      }
    }
    return new Assignment(agentId, ActivationKind.INBOX, toArray(ids), toArray(tokens));
  }

  private Assignment claimStalest() throws SQLException {
    try (PreparedStatement claim = connection.prepareStatement(CLAIM_STALEST);
        ResultSet rs = claim.executeQuery()) {
      if (!rs.next()) {
        return null;
      }
      return new Assignment(rs.getString(1), ActivationKind.EXPLORATION, new long[0], new long[0]);
    }
  }

  /** ADR-011's {@code release}: notifications read, agent stamped, lock released, durably. */
  void complete(Assignment assignment) throws SQLException {
    if (assignment.notificationIds().length > 0) {
      try (PreparedStatement mark = connection.prepareStatement(MARK_READ)) {
        Long[] boxed = new Long[assignment.notificationIds().length];
        for (int i = 0; i < boxed.length; i++) {
          boxed[i] = assignment.notificationIds()[i];
        }
        Array ids = connection.createArrayOf("bigint", boxed);
        mark.setArray(1, ids);
        mark.executeUpdate();
        ids.free();
      }
    }
    try (PreparedStatement stamp = connection.prepareStatement(STAMP_AGENT)) {
      stamp.setString(1, assignment.agentId());
      stamp.executeUpdate();
    }
    connection.commit();
  }

  void abandon() {
    try {
      connection.rollback();
    } catch (SQLException ignored) {
      // the connection is being discarded anyway
    }
  }

  private static long[] toArray(List<Long> values) {
    return values.stream().mapToLong(Long::longValue).toArray();
  }
}
