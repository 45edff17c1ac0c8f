package dev.rota.cluster.readmodel;

import dev.rota.cluster.agent.AgentEntity;
import dev.rota.cluster.agent.AgentEvents.Event;
import dev.rota.core.model.Partitions;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;
import org.apache.pekko.persistence.typed.PersistenceId;

/**
 * Brings up to date, once, the read model of a database written before Rota's journal wrote it in
 * the events' transaction (decision 27), when a Pekko projection per partition kept {@code
 * agent_schedule}, {@code dead_letter} and {@code rota_counter} and stored how far it had read in
 * {@code pekko_projection_offset_store} (decision 97 retired it). What that projection had not
 * applied — every agent event past its partition's stored offset — is applied now, in journal
 * order, through the journal's own writer ({@link ReadModelUpdate}), a batch per transaction; then
 * the offsets are deleted, so a second run finds nothing to do.
 *
 * <p>Safe to run on any database, and again after an interruption: a database the journal always
 * wrote has no stored offsets (nothing is done), and every change the writer makes is guarded by
 * the agent's sequence number, counts included, so an event the read model already reflects changes
 * nothing. Run it with the nodes stopped ({@code java -jar rota-server.jar catch-up-read-model},
 * docs/operations.md): until it has run, coordinators, listings and the lease rescuer read rows
 * that miss the projection's unapplied tail.
 */
public final class ReadModelCatchUp {
  /** The retired projection's name in the offset store; its keys were the partition tags. */
  static final String PROJECTION_NAME = "agent-schedule";

  private static final int BATCH = 500;

  /** The persistence ids of agents start so; other entities' events have no rows. */
  private static final String AGENTS =
      AgentEntity.ENTITY_TYPE_KEY.name() + PersistenceId.DefaultSeparator();

  /** Turns a journal row's payload back into its event (the actor system's serialization). */
  @FunctionalInterface
  public interface Deserializer {
    Object deserialize(byte[] payload, int serializerId, String manifest);
  }

  /**
   * What a run did.
   *
   * @param offsets the projection's stored offsets it found (0: nothing to do)
   * @param applied agent events it applied
   * @param skipped events the read model could not hold (recorded as the journal's writer does)
   */
  public record Result(int offsets, long applied, long skipped) {}

  private final DataSource dataSource;
  private final int partitions;
  private final Deserializer deserializer;

  /**
   * @param partitions {@code rota.partitions}, as the database records it
   */
  public ReadModelCatchUp(DataSource dataSource, int partitions, Deserializer deserializer) {
    this.dataSource = dataSource;
    this.partitions = partitions;
    this.deserializer = deserializer;
  }

  /** Applies what the projection had not, then forgets its offsets. */
  public Result run() throws SQLException {
    try (Connection connection = dataSource.getConnection()) {
      connection.setAutoCommit(false);
      Map<Integer, Long> offsets = offsets(connection);
      connection.commit();
      if (offsets.isEmpty()) {
        return new Result(0, 0, 0);
      }
      // A partition without an offset had had nothing applied.
      long from = 0;
      if (offsets.size() == partitions) {
        from = offsets.values().stream().mapToLong(Long::longValue).min().orElse(0);
      }
      AtomicLong skipped = new AtomicLong();
      ReadModelUpdate update = new ReadModelUpdate(partitions, skipped::incrementAndGet);
      long applied = 0;
      while (true) {
        List<ReadModelUpdate.Change> changes = new ArrayList<>();
        long last = readBatch(connection, from, offsets, changes);
        if (last == from) {
          break;
        }
        update.apply(connection, changes);
        connection.commit();
        applied += changes.size();
        from = last;
      }
      try (PreparedStatement s =
          connection.prepareStatement(
              "delete from pekko_projection_offset_store where projection_name = ?")) {
        s.setString(1, PROJECTION_NAME);
        s.executeUpdate();
      }
      connection.commit();
      return new Result(offsets.size(), applied, skipped.get());
    }
  }

  /** The stored offset (a journal ordering) of each partition the projection had started. */
  private Map<Integer, Long> offsets(Connection connection) throws SQLException {
    Map<String, Integer> partitionOfTag = new HashMap<>();
    for (int p = 0; p < partitions; p++) {
      partitionOfTag.put(Partitions.tag(p), p);
    }
    Map<Integer, Long> offsets = new HashMap<>();
    try (PreparedStatement s =
        connection.prepareStatement(
            "select projection_key, current_offset from pekko_projection_offset_store"
                + " where projection_name = ?")) {
      s.setString(1, PROJECTION_NAME);
      try (ResultSet rs = s.executeQuery()) {
        while (rs.next()) {
          Integer partition = partitionOfTag.get(rs.getString(1));
          if (partition != null) {
            offsets.put(partition, Long.parseLong(rs.getString(2).trim()));
          }
        }
      }
    }
    return offsets;
  }

  /**
   * Reads up to {@link #BATCH} journal rows after ordering {@code from}, adding the agent events
   * their partition's projection had not applied; the last ordering read ({@code from} when none).
   */
  private long readBatch(
      Connection connection,
      long from,
      Map<Integer, Long> offsets,
      List<ReadModelUpdate.Change> changes)
      throws SQLException {
    long last = from;
    try (PreparedStatement s =
        connection.prepareStatement(
            "select ordering, persistence_id, sequence_number, event_ser_id, event_ser_manifest,"
                + " event_payload from event_journal where ordering > ? and deleted = false"
                + " order by ordering limit ?")) {
      s.setLong(1, from);
      s.setInt(2, BATCH);
      try (ResultSet rs = s.executeQuery()) {
        while (rs.next()) {
          last = rs.getLong(1);
          String persistenceId = rs.getString(2);
          if (!persistenceId.startsWith(AGENTS)) {
            continue;
          }
          int partition = Partitions.of(PersistenceId.extractEntityId(persistenceId), partitions);
          if (last <= offsets.getOrDefault(partition, 0L)) {
            continue;
          }
          Object event = deserializer.deserialize(rs.getBytes(6), rs.getInt(4), rs.getString(5));
          if (event instanceof Event agentEvent) {
            changes.add(new ReadModelUpdate.Change(persistenceId, rs.getLong(3), agentEvent));
          }
        }
      }
    }
    return last;
  }
}
