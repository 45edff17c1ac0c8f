package dev.rota.cluster.readmodel;

import dev.rota.cluster.agent.AgentEvents.Event;
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
 * (decision 27) or a projection's. A failure the database would give again (a value a column cannot
 * hold: SQLState class 22 or 23; or a bug in the writer) must not stop the events: the changes are
 * rolled back to a savepoint and applied again one event at a time, and an event that still fails
 * is skipped, logged at ERROR once, counted, and recorded in {@code rota_skipped_event} within the
 * same transaction; its agent's row is marked for a rebuild from the entity ({@link RowRebuild}),
 * so the agent does not drop out of {@code agent_schedule} (its coordinator and the lease rescuer
 * read it there). Any other failure (the connection, the server) is thrown, and the caller's
 * transaction fails as a whole.
 */
public final class ReadModelUpdate {
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
    apply(connection, changes, -1);
  }

  /**
   * As {@link #apply(Connection, List)}, adding counts to the counter rows of {@code counterSlot}
   * (see {@link #ensureCounterRows}) instead of those of the agents' partitions: a writer that owns
   * its slot never waits for another's lock on a counter row.
   */
  public void apply(Connection connection, List<Change> changes, int counterSlot)
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
   * Creates every counter row of slots {@code 0..slots-1} that does not exist yet, each in its own
   * statement on an auto-committing connection, so that writers only ever update them: two first
   * inserts of one row would otherwise fail one of their transactions.
   */
  public void ensureCounterRows(Connection connection, int slots) throws SQLException {
    for (int partition = 0; partition < slots; partition++) {
      for (Counter counter : Counter.values()) {
        try (PreparedStatement s =
            connection.prepareStatement(
                "insert into rota_counter (name, partition_id, total) select ?, ?, 0"
                    + " where not exists (select 1 from rota_counter where name = ?"
                    + " and partition_id = ?)")) {
          s.setString(1, counter.key());
          s.setInt(2, partition);
          s.setString(3, counter.key());
          s.setInt(4, partition);
          s.executeUpdate();
        } catch (SQLException e) {
          if (e.getSQLState() == null || !e.getSQLState().startsWith("23")) {
            throw e;
          }
          // Another node created it meanwhile.
        }
      }
    }
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
