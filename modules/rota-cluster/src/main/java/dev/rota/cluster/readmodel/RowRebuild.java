package dev.rota.cluster.readmodel;

import dev.rota.core.model.AgentSummary;
import dev.rota.core.model.Lease;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;

/**
 * Rows of {@code agent_schedule} that a skipped event left wrong, and their repair from the agent
 * entity. Marking happens in the writer's transaction ({@link ReadModelUpdate}); rewriting happens
 * later, outside it (the lease rescuer asks the entity and calls {@link #rewrite}).
 *
 * <p>A rewrite is guarded like every update of the row: it applies only while the row reflects no
 * event newer than the entity's answer, so a writer that has moved on is never set back; the row
 * then stays marked and is tried again. Dead-letter rows and counters are not rebuilt (the row's
 * {@code dead_letters} count is).
 */
public final class RowRebuild {
  private static final String REWRITE =
      "update agent_schedule set name = ?, capabilities = ?, priority = ?,"
          + " min_activation_interval_seconds = ?, config = ?, unread = ?, oldest_unread_at = ?,"
          + " last_activated_at = ?, activation_count = ?, lease_id = ?, lease_runner_id = ?,"
          + " lease_kind = ?, lease_expires_at = ?, lease_granted_at = ?, paused = ?,"
          + " snoozed_until = ?, dead_letters = ?, next_fire_at = ?, rebuild = false,"
          + " seq_nr = ?, updated_at = ? where agent_id = ? and seq_nr <= ?";

  /** The marked rows, in agent order: a partial index holds exactly these (V14). */
  static final String PENDING =
      "select agent_id from agent_schedule where rebuild = true order by agent_id limit ?";

  private final DataSource dataSource;

  RowRebuild(DataSource dataSource) {
    this.dataSource = dataSource;
  }

  /**
   * Marks the agent's row for a rebuild; an agent without a row gets a placeholder (no
   * capabilities, nothing unread) so that it is still listed and loaded: a coordinator that offers
   * it asks the entity, which answers with what it really is.
   */
  static void mark(Connection connection, String agentId, int partition, Instant at)
      throws SQLException {
    try (PreparedStatement s =
        connection.prepareStatement(
            "update agent_schedule set rebuild = true where agent_id = ?")) {
      s.setString(1, agentId);
      if (s.executeUpdate() > 0) {
        return;
      }
    }
    try (PreparedStatement s =
        connection.prepareStatement(
            "insert into agent_schedule (agent_id, partition_id, seq_nr, updated_at, rebuild)"
                + " values (?, ?, 0, ?, true)")) {
      s.setString(1, agentId);
      s.setInt(2, partition);
      Sql.setInstant(s, 3, at);
      s.executeUpdate();
    }
  }

  /** Agents whose rows are marked, at most {@code limit}. */
  List<String> pending(int limit) throws SQLException {
    try (Connection connection = dataSource.getConnection();
        PreparedStatement s = connection.prepareStatement(PENDING)) {
      s.setInt(1, limit);
      List<String> ids = new ArrayList<>();
      try (ResultSet rs = s.executeQuery()) {
        while (rs.next()) {
          ids.add(rs.getString(1));
        }
      }
      return ids;
    }
  }

  /**
   * Rewrites the agent's row from the entity's {@code agent} as of its event {@code seqNr} (or
   * deletes it when the agent is not registered); false when the row has moved past {@code seqNr}
   * and stays marked.
   */
  boolean rewrite(AgentSummary agent, long seqNr, Instant at) throws SQLException {
    try (Connection connection = dataSource.getConnection()) {
      connection.setAutoCommit(true);
      if (!agent.registered()) {
        try (PreparedStatement s =
            connection.prepareStatement(
                "delete from agent_schedule where agent_id = ? and seq_nr <= ?")) {
          s.setString(1, agent.agentId());
          s.setLong(2, seqNr);
          return s.executeUpdate() > 0;
        }
      }
      try (PreparedStatement s = connection.prepareStatement(REWRITE)) {
        String agentId = agent.agentId();
        int i = 1;
        s.setString(i++, Sql.fit(agent.config().name(), 256));
        s.setString(i++, ScheduleColumns.capabilities(agentId, agent.config()));
        s.setInt(i++, agent.config().priority());
        s.setLong(i++, agent.config().minActivationIntervalSeconds());
        s.setString(i++, ScheduleColumns.configJson(agentId, agent.config()));
        s.setInt(i++, agent.unread());
        Sql.setInstant(s, i++, agent.oldestUnreadAt());
        Sql.setInstant(s, i++, agent.lastActivatedAt());
        s.setLong(i++, agent.activationCount());
        Lease lease = agent.lease();
        s.setString(i++, lease == null ? null : Sql.fit(lease.leaseId(), 512));
        s.setString(i++, lease == null ? null : Sql.fit(lease.runnerId(), 256));
        s.setString(i++, lease == null ? null : lease.kind().wireName());
        Sql.setInstant(s, i++, lease == null ? null : lease.expiresAt());
        Sql.setInstant(s, i++, lease == null ? null : lease.grantedAt());
        s.setBoolean(i++, agent.paused());
        Sql.setInstant(s, i++, agent.snoozedUntil());
        s.setInt(i++, agent.deadLetters());
        Sql.setInstant(s, i++, agent.nextFireAt());
        s.setLong(i++, seqNr);
        Sql.setInstant(s, i++, at);
        s.setString(i++, agentId);
        s.setLong(i, seqNr);
        return s.executeUpdate() > 0;
      }
    }
  }
}
