package dev.rota.cluster.readmodel;

import dev.rota.cluster.agent.AgentEvents.Event;
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
import org.apache.pekko.projection.eventsourced.EventEnvelope;
import org.apache.pekko.projection.jdbc.javadsl.JdbcHandler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Applies a group of one partition's agent events to the read model in the projection's
 * transaction; the projection stores its offset in the same transaction and commits. A failure the
 * database would give again (a value a column cannot hold: SQLState class 22 or 23; or a bug in the
 * writer) must not stop the partition forever: the group is rolled back to a savepoint and applied
 * again one event at a time, and an event that still fails is skipped, logged at ERROR once,
 * counted, and recorded in {@code rota_skipped_event} within the same transaction. Any other
 * failure (the connection, the server) rolls everything back and the projection restarts from the
 * stored offset (with backoff), as before.
 */
public final class AgentScheduleProjectionHandler
    extends JdbcHandler<List<EventEnvelope<Event>>, PlainJdbcSession> {
  private static final Logger log = LoggerFactory.getLogger(AgentScheduleProjectionHandler.class);
  private static final int MAX_REASON = 2000;

  private final int partition;
  private final int partitions;
  private final Runnable onSkipped;

  /**
   * @param partition the partition (tag) this projection instance follows
   * @param partitions the partition count ({@code rota.partitions})
   * @param onSkipped told of every event skipped (a metric)
   */
  public AgentScheduleProjectionHandler(int partition, int partitions, Runnable onSkipped) {
    this.partition = partition;
    this.partitions = partitions;
    this.onSkipped = onSkipped;
  }

  public AgentScheduleProjectionHandler(int partition, int partitions) {
    this(partition, partitions, () -> {});
  }

  @Override
  public void process(PlainJdbcSession session, List<EventEnvelope<Event>> envelopes)
      throws Exception {
    session.withConnection(
        connection -> {
          List<AgentScheduleWriter.Item> items = new ArrayList<>(envelopes.size());
          for (EventEnvelope<Event> envelope : envelopes) {
            items.add(
                new AgentScheduleWriter.Item(
                    PersistenceId.extractEntityId(envelope.persistenceId()),
                    envelope.sequenceNr(),
                    envelope.event()));
          }
          Savepoint group = connection.setSavepoint();
          try {
            apply(connection, items);
          } catch (SQLException | RuntimeException e) {
            if (!isPoison(e)) {
              throw e;
            }
            connection.rollback(group);
            applyOneByOne(connection, envelopes, items);
          }
          return null;
        });
  }

  private void apply(Connection connection, List<AgentScheduleWriter.Item> items)
      throws SQLException {
    try (AgentScheduleWriter writer = new AgentScheduleWriter(connection, partition, partitions)) {
      writer.applyGroup(items);
      writer.flushCounters();
    }
  }

  private void applyOneByOne(
      Connection connection,
      List<EventEnvelope<Event>> envelopes,
      List<AgentScheduleWriter.Item> items)
      throws SQLException {
    for (int i = 0; i < items.size(); i++) {
      Savepoint one = connection.setSavepoint();
      try {
        apply(connection, List.of(items.get(i)));
      } catch (SQLException | RuntimeException e) {
        if (!isPoison(e)) {
          throw e;
        }
        connection.rollback(one);
        skip(connection, envelopes.get(i), e);
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

  private void skip(Connection connection, EventEnvelope<Event> envelope, Exception cause)
      throws SQLException {
    String type = envelope.event().getClass().getSimpleName();
    String reason = TextRules.printable(String.valueOf(cause.getMessage()));
    if (reason.length() > MAX_REASON) {
      reason = reason.substring(0, MAX_REASON);
    }
    log.error(
        "read model of partition {} skips event {} #{} ({}): {}",
        partition,
        envelope.persistenceId(),
        envelope.sequenceNr(),
        type,
        reason);
    try (PreparedStatement s =
        connection.prepareStatement(
            "insert into rota_skipped_event"
                + " (persistence_id, seq_nr, partition_id, event_type, reason, skipped_at)"
                + " values (?, ?, ?, ?, ?, ?)")) {
      s.setString(1, envelope.persistenceId());
      s.setLong(2, envelope.sequenceNr());
      s.setInt(3, partition);
      s.setString(4, type);
      s.setString(5, reason);
      s.setTimestamp(6, Timestamp.from(Instant.now()));
      s.executeUpdate();
    }
    onSkipped.run();
  }
}
