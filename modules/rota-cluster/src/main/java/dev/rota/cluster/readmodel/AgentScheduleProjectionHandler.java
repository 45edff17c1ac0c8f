package dev.rota.cluster.readmodel;

import dev.rota.cluster.agent.AgentEvents.Event;
import java.util.ArrayList;
import java.util.List;
import org.apache.pekko.persistence.typed.PersistenceId;
import org.apache.pekko.projection.eventsourced.EventEnvelope;
import org.apache.pekko.projection.jdbc.javadsl.JdbcHandler;

/**
 * Applies a group of one partition's agent events to the read model in the projection's
 * transaction; the projection stores its offset in the same transaction and commits. A failure
 * rolls everything back and the projection restarts from the stored offset (with backoff).
 */
public final class AgentScheduleProjectionHandler
    extends JdbcHandler<List<EventEnvelope<Event>>, PlainJdbcSession> {
  private final int partition;
  private final int partitions;

  /**
   * @param partition the partition (tag) this projection instance follows
   * @param partitions the partition count ({@code rota.partitions})
   */
  public AgentScheduleProjectionHandler(int partition, int partitions) {
    this.partition = partition;
    this.partitions = partitions;
  }

  @Override
  public void process(PlainJdbcSession session, List<EventEnvelope<Event>> envelopes)
      throws Exception {
    session.withConnection(
        connection -> {
          try (AgentScheduleWriter writer =
              new AgentScheduleWriter(connection, partition, partitions)) {
            List<AgentScheduleWriter.Item> items = new ArrayList<>(envelopes.size());
            for (EventEnvelope<Event> envelope : envelopes) {
              items.add(
                  new AgentScheduleWriter.Item(
                      PersistenceId.extractEntityId(envelope.persistenceId()),
                      envelope.sequenceNr(),
                      envelope.event()));
            }
            writer.applyGroup(items);
            writer.flushCounters();
          }
          return null;
        });
  }
}
