package dev.rota.cluster.readmodel;

import dev.rota.cluster.agent.AgentEvents.Event;
import java.util.ArrayList;
import java.util.List;
import org.apache.pekko.projection.eventsourced.EventEnvelope;
import org.apache.pekko.projection.jdbc.javadsl.JdbcHandler;

/**
 * Applies a group of one partition's agent events to the read model in the projection's transaction
 * (see {@link ReadModelUpdate}); the projection stores its offset in the same transaction and
 * commits. Used when the journal does not write the read model itself ({@code
 * rota.read-model.writer = projection}, or another journal plugin).
 */
public final class AgentScheduleProjectionHandler
    extends JdbcHandler<List<EventEnvelope<Event>>, PlainJdbcSession> {

  private final ReadModelUpdate update;

  /**
   * @param partitions the partition count ({@code rota.partitions})
   * @param onSkipped told of every event skipped (a metric)
   */
  public AgentScheduleProjectionHandler(int partitions, Runnable onSkipped) {
    this.update = new ReadModelUpdate(partitions, onSkipped);
  }

  public AgentScheduleProjectionHandler(int partitions) {
    this(partitions, () -> {});
  }

  @Override
  public void process(PlainJdbcSession session, List<EventEnvelope<Event>> envelopes)
      throws Exception {
    session.withConnection(
        connection -> {
          List<ReadModelUpdate.Change> changes = new ArrayList<>(envelopes.size());
          for (EventEnvelope<Event> envelope : envelopes) {
            changes.add(
                new ReadModelUpdate.Change(
                    envelope.persistenceId(), envelope.sequenceNr(), envelope.event()));
          }
          update.apply(connection, changes);
          return null;
        });
  }
}
