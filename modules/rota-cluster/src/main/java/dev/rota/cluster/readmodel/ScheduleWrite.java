package dev.rota.cluster.readmodel;

import dev.rota.cluster.agent.AgentEvents.AgentRegistered;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One statement for one agent's row, and what follows when it did or did not change the row: its
 * dead letters and counts apply only with the row change, so an event the row's guard ignores
 * ({@code seq_nr < ?}) leaves no trace anywhere. {@link WritePlan} makes them from events; {@link
 * AgentScheduleWriter} runs them.
 */
interface ScheduleWrite {
  String GUARD = ", seq_nr = ?, updated_at = ? where agent_id = ? and seq_nr < ?";
  String REGISTERED =
      "partition_id = ?, name = ?, capabilities = ?, priority = ?,"
          + " min_activation_interval_seconds = ?, config = ?, unread = 0,"
          + " oldest_unread_at = null, last_activated_at = null, activation_count = 0,"
          + " lease_id = null, lease_runner_id = null, lease_kind = null,"
          + " lease_expires_at = null, lease_granted_at = null, paused = false,"
          + " snoozed_until = null, dead_letters = 0, registered_at = ?, next_fire_at = ?";
  String INSERT_AGENT =
      "insert into agent_schedule (agent_id, partition_id, name, capabilities, priority,"
          + " min_activation_interval_seconds, config, registered_at, next_fire_at, seq_nr,"
          + " updated_at) values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";
  String INSERT_NEW_AGENT = INSERT_AGENT + " on conflict (agent_id) do nothing";
  String DEREGISTER = "delete from agent_schedule where agent_id = ? and seq_nr < ?";

  String sql();

  void bind(PreparedStatement statement) throws SQLException;

  void applied() throws SQLException;

  void notApplied() throws SQLException;

  @FunctionalInterface
  interface Binder {
    /** Binds the assignment parameters from index 1; returns the next free index. */
    int bind(PreparedStatement statement) throws SQLException;
  }

  @FunctionalInterface
  interface Effect {
    void run() throws SQLException;
  }

  /** A guarded update of one agent's row; its effects run only when it changed the row. */
  class Update implements ScheduleWrite {
    private static final Logger log = LoggerFactory.getLogger(AgentScheduleWriter.class);

    final AgentScheduleWriter writer;
    final String agentId;
    final long seqNr;
    final long guardSeqNr;
    final Instant at;
    final String sql;
    final Binder binder;
    final List<Effect> effects = new ArrayList<>();
    final List<Effect> otherwise = new ArrayList<>();
    final Object what;

    /**
     * @param guardSeqNr the row changes only if its {@code seq_nr} is below this: the first folded
     *     event's number, so a folded update applies exactly when that event alone would have
     */
    Update(
        AgentScheduleWriter writer,
        String agentId,
        long seqNr,
        long guardSeqNr,
        Instant at,
        String assignments,
        Binder binder,
        Object what) {
      this.writer = writer;
      this.agentId = agentId;
      this.seqNr = seqNr;
      this.guardSeqNr = guardSeqNr;
      this.at = at;
      this.sql = "update agent_schedule set " + assignments + GUARD;
      this.binder = binder;
      this.what = what;
    }

    Update then(Effect effect) {
      effects.add(effect);
      return this;
    }

    /** What runs when the update did not change the row (none, or not older than the event). */
    Update otherwise(Effect effect) {
      otherwise.add(effect);
      return this;
    }

    Update counting(Counter counter, long n) {
      return then(() -> writer.count(agentId, counter, n));
    }

    @Override
    public String sql() {
      return sql;
    }

    @Override
    public void bind(PreparedStatement s) throws SQLException {
      int i = binder.bind(s);
      s.setLong(i++, seqNr);
      Sql.setInstant(s, i++, at);
      s.setString(i++, agentId);
      s.setLong(i, guardSeqNr);
    }

    @Override
    public void applied() throws SQLException {
      for (Effect effect : effects) {
        effect.run();
      }
    }

    @Override
    public void notApplied() throws SQLException {
      log.debug("ignored {} #{} of agent {}: not newer than its row", what, seqNr, agentId);
      for (Effect effect : otherwise) {
        effect.run();
      }
    }
  }

  /** A registration: resets the row, or inserts it when there is none. */
  final class Registration extends Update {
    final AgentRegistered event;
    final int partitionId;

    Registration(AgentScheduleWriter writer, String agentId, long seqNr, AgentRegistered event) {
      super(writer, agentId, seqNr, seqNr, event.at(), REGISTERED, null, event);
      this.event = event;
      this.partitionId = writer.partitionOf(agentId);
      // A registration starts afresh (AgentState.registered): nothing of an older life remains.
      then(() -> writer.deleteDeadLettersOf(agentId));
    }

    @Override
    public void bind(PreparedStatement s) throws SQLException {
      s.setInt(1, partitionId);
      int i = ScheduleColumns.bindConfig(s, 2, agentId, event.config());
      Sql.setInstant(s, i++, event.at());
      Sql.setInstant(s, i++, event.nextFireAt());
      s.setLong(i++, seqNr);
      Sql.setInstant(s, i++, at);
      s.setString(i++, agentId);
      s.setLong(i, guardSeqNr);
    }

    @Override
    public void notApplied() {
      writer.registrationFoundNoRow(this);
    }

    void bindInsert(PreparedStatement s) throws SQLException {
      s.setString(1, agentId);
      s.setInt(2, partitionId);
      int i = ScheduleColumns.bindConfig(s, 3, agentId, event.config());
      Sql.setInstant(s, i++, event.at());
      Sql.setInstant(s, i++, event.nextFireAt());
      s.setLong(i++, seqNr);
      Sql.setInstant(s, i, event.at());
    }
  }

  /**
   * PostgreSQL: a registration inserts its row unless the agent has one (then the writer resets
   * that row with the registration's update, as elsewhere).
   */
  final class InsertIfNew implements ScheduleWrite {
    final Registration registration;

    InsertIfNew(Registration registration) {
      this.registration = registration;
    }

    @Override
    public String sql() {
      return INSERT_NEW_AGENT;
    }

    @Override
    public void bind(PreparedStatement s) throws SQLException {
      registration.bindInsert(s);
    }

    @Override
    public void applied() {
      // A new row: no older life of the agent to clear, as when the update found no row.
    }

    @Override
    public void notApplied() {
      registration.writer.registrationFoundRow(registration);
    }
  }

  /** A deregistration deletes the row and its dead letters. */
  final class Deregistration implements ScheduleWrite {
    private static final Logger log = LoggerFactory.getLogger(AgentScheduleWriter.class);

    final AgentScheduleWriter writer;
    final String agentId;
    final long seqNr;

    Deregistration(AgentScheduleWriter writer, String agentId, long seqNr) {
      this.writer = writer;
      this.agentId = agentId;
      this.seqNr = seqNr;
    }

    @Override
    public String sql() {
      return DEREGISTER;
    }

    @Override
    public void bind(PreparedStatement s) throws SQLException {
      s.setString(1, agentId);
      s.setLong(2, seqNr);
    }

    @Override
    public void applied() throws SQLException {
      writer.deleteDeadLettersOf(agentId);
    }

    @Override
    public void notApplied() {
      log.debug("ignored deregistration #{} of agent {}: no newer row", seqNr, agentId);
    }
  }
}
