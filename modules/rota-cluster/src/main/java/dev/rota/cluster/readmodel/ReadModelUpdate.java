package dev.rota.cluster.readmodel;

import dev.rota.cluster.agent.AgentEvents.Event;
import dev.rota.cluster.journal.ReadModelSink;
import dev.rota.core.model.Partitions;
import dev.rota.core.model.TextRules;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.apache.pekko.persistence.typed.PersistenceId;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Applies agent events to the read model ({@code agent_schedule}, {@code dead_letter}, {@code
 * rota_counter}) inside a transaction the caller commits: the journal's own write transaction
 * (decision 27; {@link JournalSink}) or the one-time catch-up's ({@link ReadModelCatchUp}). A
 * failure the database would give again (a value a column cannot hold: SQLState class 22 or 23; or
 * a bug in the writer) must not stop the events: the changes are rolled back to a savepoint and
 * applied again one event at a time, and an event that still fails is skipped, logged at ERROR
 * once, counted, and recorded in {@code rota_skipped_event} within the same transaction; its
 * agent's row is marked for a rebuild from the entity ({@link RowRebuild}), so the agent does not
 * drop out of {@code agent_schedule} (its coordinator and the lease rescuer read it there). Any
 * other failure (the connection, the server) is thrown, and the caller's transaction fails as a
 * whole.
 */
public final class ReadModelUpdate implements ReadModelSink {
  private static final Logger log = LoggerFactory.getLogger(ReadModelUpdate.class);
  private static final int MAX_REASON = 2000;

  /** One persisted agent event. */
  public record Change(String persistenceId, long seqNr, Event event) {}

  private final int partitions;
  private final Runnable onSkipped;

  /**
   * @param partitions the partition count ({@code rota.partitions})
   * @param onSkipped told of every event skipped (a metric)
   */
  public ReadModelUpdate(int partitions, Runnable onSkipped) {
    this.partitions = partitions;
    this.onSkipped = onSkipped;
  }

  /** Applies the changes, in order per agent, on {@code connection} (not committed here). */
  public void apply(Connection connection, List<Change> changes) throws SQLException {
    applyChanges(connection, changes, -1);
  }

  /** The journal's batch ({@link ReadModelSink}): its agent events; other events have no rows. */
  @Override
  public void apply(Connection connection, List<Persisted> events, int writerSlot)
      throws SQLException {
    List<Change> changes = new ArrayList<>(events.size());
    for (Persisted persisted : events) {
      if (persisted.event() instanceof Event event) {
        changes.add(new Change(persisted.persistenceId(), persisted.sequenceNr(), event));
      }
    }
    applyChanges(connection, changes, writerSlot);
  }

  /**
   * As {@link #apply(Connection, List)}, adding counts to the counter rows of {@code counterSlot}
   * (see {@link #claimWriterSlots}) instead of those of the agents' partitions: a writer that owns
   * its slot never waits for another's lock on a counter row.
   */
  public void applyChanges(Connection connection, List<Change> changes, int counterSlot)
      throws SQLException {
    if (changes.isEmpty()) {
      return;
    }
    Savepoint group = connection.setSavepoint();
    try {
      write(connection, changes, counterSlot);
    } catch (SQLException | RuntimeException e) {
      if (!isPoison(e)) {
        throw e;
      }
      connection.rollback(group);
      for (Change change : changes) {
        Savepoint one = connection.setSavepoint();
        try {
          write(connection, List.of(change), counterSlot);
        } catch (SQLException | RuntimeException again) {
          if (!isPoison(again)) {
            throw again;
          }
          connection.rollback(one);
          skip(connection, change, again);
        }
      }
    }
  }

  private void write(Connection connection, List<Change> changes, int counterSlot)
      throws SQLException {
    List<AgentScheduleWriter.Item> items = new ArrayList<>(changes.size());
    for (Change change : changes) {
      items.add(
          new AgentScheduleWriter.Item(
              PersistenceId.extractEntityId(change.persistenceId()),
              change.seqNr(),
              change.event()));
    }
    try (AgentScheduleWriter writer =
        new AgentScheduleWriter(connection, partitions, counterSlot)) {
      writer.applyGroup(items);
      writer.flushCounters();
    }
  }

  /**
   * Takes {@code count} new counter slots from the {@code rota_counter_slot} sequence and creates
   * their counter rows, on an auto-committing connection. A slot belongs to one writer of one
   * journal for as long as it runs, so writers only ever update rows no other session writes: two
   * nodes never wait for each other's lock on a counter row (a frozen node would otherwise hold
   * every other node's writer of the same slot). Each start adds {@code count} x counters rows;
   * totals are sums over them.
   */
  @Override
  public int[] claimWriterSlots(Connection connection, int count) throws SQLException {
    boolean postgres = "PostgreSQL".equals(connection.getMetaData().getDatabaseProductName());
    String next =
        postgres
            ? "select nextval('rota_counter_slot')"
            : "select next value for rota_counter_slot";
    int[] slots = new int[count];
    for (int i = 0; i < count; i++) {
      try (PreparedStatement s = connection.prepareStatement(next);
          java.sql.ResultSet row = s.executeQuery()) {
        row.next();
        slots[i] = Math.toIntExact(row.getLong(1));
      }
      for (Counter counter : Counter.values()) {
        try (PreparedStatement s =
            connection.prepareStatement(
                "insert into rota_counter (name, partition_id, total) values (?, ?, 0)")) {
          s.setString(1, counter.key());
          s.setInt(2, slots[i]);
          s.executeUpdate();
        }
      }
    }
    return slots;
  }

  /** A failure that applying the same event again would repeat. */
  static boolean isPoison(Exception e) {
    if (e instanceof SQLException sql) {
      String state = sql.getSQLState();
      return state != null && (state.startsWith("22") || state.startsWith("23"));
    }
    return !(e instanceof ReadModelException);
  }

  private void skip(Connection connection, Change change, Exception cause) throws SQLException {
    String type = change.event().getClass().getSimpleName();
    int partition =
        Partitions.of(PersistenceId.extractEntityId(change.persistenceId()), partitions);
    String reason = TextRules.printable(String.valueOf(cause.getMessage()));
    if (reason.length() > MAX_REASON) {
      reason = reason.substring(0, MAX_REASON);
    }
    log.error(
        "read model of partition {} skips event {} #{} ({}): {}",
        partition,
        change.persistenceId(),
        change.seqNr(),
        type,
        reason);
    try (PreparedStatement s =
        connection.prepareStatement(
            "insert into rota_skipped_event"
                + " (persistence_id, seq_nr, partition_id, event_type, reason, skipped_at)"
                + " values (?, ?, ?, ?, ?, ?)")) {
      s.setString(1, change.persistenceId());
      s.setLong(2, change.seqNr());
      s.setInt(3, partition);
      s.setString(4, type);
      s.setString(5, reason);
      s.setTimestamp(6, Timestamp.from(Instant.now()));
      s.executeUpdate();
    }
    RowRebuild.mark(
        connection,
        PersistenceId.extractEntityId(change.persistenceId()),
        partition,
        Instant.now());
    onSkipped.run();
  }
}
