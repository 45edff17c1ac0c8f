package dev.rota.cluster.journal;

import com.typesafe.config.Config;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.rota.cluster.metrics.RotaMetrics;
import dev.rota.cluster.system.SessionLimits;
import dev.rota.cluster.system.WriteGuard;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Consumer;
import org.apache.pekko.actor.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.dispatch.Futures;
import org.apache.pekko.persistence.AtomicWrite;
import org.apache.pekko.persistence.PersistentRepr;
import org.apache.pekko.persistence.journal.japi.AsyncWriteJournal;
import org.apache.pekko.serialization.Serialization;
import org.apache.pekko.serialization.SerializationExtension;
import scala.concurrent.Future;
import scala.concurrent.Promise;
import scala.jdk.javaapi.CollectionConverters;

/**
 * Rota's event journal: pekko-persistence-jdbc's tables and row format ({@code event_journal},
 * {@code event_tag}, migrations V1 and V5), so its read journal and the events stream read what
 * this writes, with a write path built for many small concurrent writes ({@link BatchWriter}).
 *
 * <p>Every agent command that changes the agent persists one event before it is answered, so the
 * journal write is on the path of every notification, claim and completion. The plugin's own write
 * path runs each write as a Slick transaction of several steps, each scheduled on the next free
 * thread, and batches writes only once its eight parallel transactions are all busy; here writes
 * queue for a few writer threads that commit whatever is queued at once.
 *
 * <p>The journal is a storage plugin: it does not know what the events mean. A read model kept in
 * the events' transaction plugs in as a {@link ReadModelSink}, named by {@code read-model-sink}.
 * Replays and sequence-number reads run on their own threads and connections, so a burst of
 * recoveries does not delay writes. Configured under {@code rota-journal} (the server's {@code
 * persistence.conf}).
 */
public final class RotaJournal extends AsyncWriteJournal {
  private static final String REPLAY =
      "select sequence_number, writer, write_timestamp, adapter_manifest, event_payload,"
          + " event_ser_id, event_ser_manifest, meta_payload, meta_ser_id, meta_ser_manifest"
          + " from event_journal where persistence_id = ? and sequence_number >= ?"
          + " and sequence_number <= ? and deleted = false order by sequence_number limit ?";

  /**
   * The highest sequence number: of the events, or of the latest snapshot once retention removed
   * every event up to it (decision 124), so a new event never reuses a number.
   */
  private static final String HIGHEST =
      "select greatest((select coalesce(max(sequence_number), 0) from event_journal"
          + " where persistence_id = ?), (select coalesce(max(sequence_number), 0) from snapshot"
          + " where persistence_id = ?))";

  private static final String DELETE =
      "update event_journal set deleted = true where persistence_id = ? and sequence_number <= ?";

  private final Serialization serialization;
  private final HikariDataSource dataSource;
  private final ExecutorService readers;
  private final BatchWriter writer;

  public RotaJournal(Config config) {
    ActorSystem<?> system = Adapter.toTyped(context().system());
    this.serialization = SerializationExtension.get(context().system());
    int writerCount = config.getInt("writers");
    int readerCount = config.getInt("readers");
    this.dataSource = dataSource(config, writerCount + readerCount, system.settings().config());
    this.readers =
        Executors.newFixedThreadPool(
            readerCount,
            r -> {
              Thread t = new Thread(r, "rota-journal-reader");
              t.setDaemon(true);
              return t;
            });
    this.writer =
        new BatchWriter(
            dataSource,
            sink(config, system),
            RotaMetrics.get(system),
            WriteGuard.get(system),
            new BatchWriter.Settings(
                writerCount,
                config.getInt("max-batch-rows"),
                config.getDuration("max-queue-wait")));
  }

  private static HikariDataSource dataSource(Config config, int size, Config system) {
    HikariConfig hikari = new HikariConfig();
    hikari.setPoolName("rota-journal");
    hikari.setDriverClassName(config.getString("db.driver"));
    hikari.setJdbcUrl(config.getString("db.url"));
    hikari.setUsername(config.getString("db.user"));
    if (config.hasPath("db.password")) {
      hikari.setPassword(config.getString("db.password"));
    }
    hikari.setMaximumPoolSize(size);
    hikari.setConnectionTimeout(config.getDuration("db.connection-timeout").toMillis());
    if (SessionLimits.appliesTo(hikari.getJdbcUrl())) {
      hikari.setDataSourceProperties(SessionLimits.from(system).asProperties());
    }
    return new HikariDataSource(hikari);
  }

  /** The sink {@code read-model-sink} names, if it names one and that one wants to be used. */
  private static Optional<ReadModelSink> sink(Config config, ActorSystem<?> system) {
    String provider = config.hasPath("read-model-sink") ? config.getString("read-model-sink") : "";
    if (provider.isBlank()) {
      return Optional.empty();
    }
    try {
      return Class.forName(provider)
          .asSubclass(ReadModelSink.Provider.class)
          .getConstructor()
          .newInstance()
          .sinkFor(system);
    } catch (ReflectiveOperationException | ClassCastException e) {
      throw new IllegalArgumentException("read-model-sink: cannot use " + provider, e);
    }
  }

  // ---- writing ----

  @Override
  public Future<Iterable<Optional<Exception>>> doAsyncWriteMessages(
      Iterable<AtomicWrite> messages) {
    List<EventRow> rows = new ArrayList<>();
    List<Optional<Exception>> results = new ArrayList<>();
    for (AtomicWrite write : messages) {
      List<EventRow> writeRows = new ArrayList<>();
      try {
        for (PersistentRepr repr : CollectionConverters.asJava(write.payload())) {
          writeRows.add(EventRow.of(repr, serialization));
        }
        rows.addAll(writeRows);
        results.add(Optional.empty());
      } catch (Exception e) {
        // Not serializable: this write is rejected, the others go ahead.
        results.add(Optional.of(e));
      }
    }
    if (rows.isEmpty()) {
      return Futures.<Iterable<Optional<Exception>>>successful(results);
    }
    Promise<Iterable<Optional<Exception>>> done = Futures.promise();
    writer
        .submit(rows)
        .whenComplete(
            (committed, failure) -> {
              if (failure == null) {
                done.success(results);
              } else {
                done.failure(failure);
              }
            });
    return done.future();
  }

  // ---- reading ----

  @Override
  public Future<Void> doAsyncReplayMessages(
      String persistenceId,
      long fromSequenceNr,
      long toSequenceNr,
      long max,
      Consumer<PersistentRepr> replayCallback) {
    return Futures.future(
        () -> {
          try (Connection c = dataSource.getConnection();
              PreparedStatement s = c.prepareStatement(REPLAY)) {
            s.setString(1, persistenceId);
            s.setLong(2, fromSequenceNr);
            s.setLong(3, toSequenceNr);
            s.setLong(4, Math.min(max, Integer.MAX_VALUE));
            try (ResultSet rs = s.executeQuery()) {
              while (rs.next()) {
                replayCallback.accept(replayed(persistenceId, rs));
              }
            }
          }
          return null;
        },
        scala.concurrent.ExecutionContext.fromExecutor(readers));
  }

  private PersistentRepr replayed(String persistenceId, ResultSet rs) throws SQLException {
    Object payload =
        serialization
            .deserialize(
                rs.getBytes("event_payload"),
                rs.getInt("event_ser_id"),
                rs.getString("event_ser_manifest"))
            .get();
    PersistentRepr repr =
        PersistentRepr.apply(
                payload,
                rs.getLong("sequence_number"),
                persistenceId,
                rs.getString("adapter_manifest"),
                false,
                ActorRef.noSender(),
                rs.getString("writer"))
            .withTimestamp(rs.getLong("write_timestamp"));
    byte[] meta = rs.getBytes("meta_payload");
    if (meta != null) {
      Object metadata =
          serialization
              .deserialize(meta, rs.getInt("meta_ser_id"), rs.getString("meta_ser_manifest"))
              .get();
      repr = repr.withMetadata(metadata);
    }
    return repr;
  }

  @Override
  public Future<Long> doAsyncReadHighestSequenceNr(String persistenceId, long fromSequenceNr) {
    return Futures.future(
        () -> {
          try (Connection c = dataSource.getConnection();
              PreparedStatement s = c.prepareStatement(HIGHEST)) {
            s.setString(1, persistenceId);
            s.setString(2, persistenceId);
            try (ResultSet rs = s.executeQuery()) {
              rs.next();
              return Math.max(rs.getLong(1), 0L);
            }
          }
        },
        scala.concurrent.ExecutionContext.fromExecutor(readers));
  }

  /** Marks events deleted (the read side skips them); rows stay, so the highest number stays. */
  @Override
  public Future<Void> doAsyncDeleteMessagesTo(String persistenceId, long toSequenceNr) {
    return Futures.future(
        () -> {
          try (Connection c = dataSource.getConnection();
              PreparedStatement s = c.prepareStatement(DELETE)) {
            s.setString(1, persistenceId);
            s.setLong(2, toSequenceNr);
            s.executeUpdate();
          }
          return null;
        },
        scala.concurrent.ExecutionContext.fromExecutor(readers));
  }

  @Override
  public void postStop() throws Exception {
    writer.stop();
    readers.shutdown();
    dataSource.close();
    super.postStop();
  }
}
