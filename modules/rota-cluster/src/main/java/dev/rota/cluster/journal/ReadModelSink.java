package dev.rota.cluster.journal;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Optional;
import org.apache.pekko.actor.typed.ActorSystem;

/**
 * A read model the journal writes in the transaction of the events it derives from, so it is never
 * behind an acknowledged write and counts every event exactly once. The journal knows nothing of
 * what the events mean: it hands each batch's events, deserialized objects as persisted, to the
 * sink before it commits, and a sink's failure fails the batch like a failed insert.
 *
 * <p>The journal finds its sink through {@code read-model-sink} in its plugin config: the name of a
 * {@link Provider} class with a public no-argument constructor, or empty for none.
 */
public interface ReadModelSink {

  /** One event of the batch being written, as the entity persisted it (tags removed). */
  record Persisted(String persistenceId, long sequenceNr, Object event) {}

  /**
   * Applies the events, in write order, on {@code connection}, inside the writer's transaction; the
   * writer commits (or rolls back) after this returns (or throws).
   *
   * @param writerSlot the calling writer's own slot from {@link #claimWriterSlots}
   */
  void apply(Connection connection, List<Persisted> events, int writerSlot) throws SQLException;

  /**
   * Claims one slot per writer thread before the first write, on an auto-committing connection: a
   * writer that writes only rows keyed by its own slot never waits for another writer's lock.
   */
  int[] claimWriterSlots(Connection connection, int writers) throws SQLException;

  /** Builds the sink of a journal, or none when another writer keeps the read model. */
  interface Provider {
    Optional<ReadModelSink> sinkFor(ActorSystem<?> system);
  }
}
