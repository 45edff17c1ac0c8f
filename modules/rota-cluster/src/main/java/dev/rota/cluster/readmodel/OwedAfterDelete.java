package dev.rota.cluster.readmodel;

import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;

/**
 * What a deregistered agent still owes others, in {@code agent_outbox_after_delete} (decision 121).
 * A deregistration deletes the agent's row, but its entity keeps delivering its outbox and the
 * failed replies the deregistration owes the callers of its unread calls; the count moves to this
 * table so that the outbox sweeper still finds the agent if its node dies first. Each item
 * delivered or given up afterwards finds no row and lowers the count here; the entry goes at zero,
 * or back into the new row when the agent is registered again (its entity kept the items).
 */
final class OwedAfterDelete {
  /** The agents the sweeper wakes: rows that owe, and deleted agents that still owe. */
  static final String AGENTS_OWING =
      "select agent_id, updated_at from agent_schedule where outbox > 0 and updated_at < ?"
          + " union all select agent_id, updated_at from agent_outbox_after_delete"
          + " where outbox > 0 and updated_at < ? order by updated_at, agent_id limit ?";

  private static final String CLEAR = "delete from agent_outbox_after_delete where agent_id = ?";
  private static final String MOVE =
      "insert into agent_outbox_after_delete (agent_id, outbox, seq_nr, updated_at)"
          + " select agent_id, outbox + ?, ?, ? from agent_schedule"
          + " where agent_id = ? and seq_nr < ? and outbox + ? > 0";
  private static final String SETTLED =
      "update agent_outbox_after_delete set outbox = outbox - 1, seq_nr = ?, updated_at = ?"
          + " where agent_id = ? and seq_nr < ?";
  private static final String GONE =
      "delete from agent_outbox_after_delete where agent_id = ? and outbox <= 0";
  private static final String TAKEN_BACK =
      "update agent_schedule set outbox = outbox + (select d.outbox from"
          + " agent_outbox_after_delete d where d.agent_id = agent_schedule.agent_id)"
          + " where agent_id = ? and exists (select 1 from agent_outbox_after_delete d"
          + " where d.agent_id = ?)";

  private OwedAfterDelete() {}

  /**
   * A deregistration's writes before the row's deletion: a stale entry goes (a row placeholder's
   * leftover), then the row's count and the replies the deregistration owes ({@code replies}) move
   * here, if any; both only while the row is older than the deregistration.
   */
  static List<ScheduleWrite> moved(String agentId, long seqNr, Instant at, int replies) {
    return List.of(
        new Statement(CLEAR, s -> s.setString(1, agentId)),
        new Statement(
            MOVE,
            s -> {
              s.setInt(1, replies);
              s.setLong(2, seqNr);
              Sql.setInstant(s, 3, at);
              s.setString(4, agentId);
              s.setLong(5, seqNr);
              s.setInt(6, replies);
            }));
  }

  /** After a registration's row is written: what its older life still owes comes back into it. */
  static ScheduleWrite takenBack(AgentScheduleWriter writer, String agentId) {
    return new Statement(
        TAKEN_BACK,
        s -> {
          s.setString(1, agentId);
          s.setString(2, agentId);
        },
        () -> writer.run(CLEAR, s -> s.setString(1, agentId)));
  }

  /**
   * An item delivered or given up whose agent had no row to lower (it was deregistered): lowers its
   * count here, guarded by the entry's sequence number; the entry goes at zero.
   */
  static void settled(AgentScheduleWriter writer, String agentId, long seqNr, Instant at)
      throws SQLException {
    int changed =
        writer.run(
            SETTLED,
            s -> {
              s.setLong(1, seqNr);
              Sql.setInstant(s, 2, at);
              s.setString(3, agentId);
              s.setLong(4, seqNr);
            });
    if (changed > 0) {
      writer.run(GONE, s -> s.setString(1, agentId));
    }
  }

  /** A statement without a guard of its own: what follows it runs only when it changed a row. */
  private static final class Statement implements ScheduleWrite {
    private final String sql;
    private final Params params;
    private final ScheduleWrite.Effect then;

    Statement(String sql, Params params) {
      this(sql, params, () -> {});
    }

    Statement(String sql, Params params, ScheduleWrite.Effect then) {
      this.sql = sql;
      this.params = params;
      this.then = then;
    }

    @Override
    public String sql() {
      return sql;
    }

    @Override
    public void bind(PreparedStatement statement) throws SQLException {
      params.bind(statement);
    }

    @Override
    public void applied() throws SQLException {
      then.run();
    }

    @Override
    public void notApplied() {
      // Nothing owed, or nothing to clear.
    }
  }

  /** Binds a statement's parameters. */
  @FunctionalInterface
  interface Params {
    void bind(PreparedStatement statement) throws SQLException;
  }
}
