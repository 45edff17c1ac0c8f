package dev.rota.cluster.journal;

import com.typesafe.config.Config;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.rota.cluster.agent.AgentEvents;
import dev.rota.cluster.metrics.RotaMetrics;
import dev.rota.cluster.readmodel.ReadModelUpdate;
import dev.rota.cluster.system.SessionLimits;
import dev.rota.cluster.system.WriteGuard;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.apache.pekko.actor.ActorRef;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.dispatch.Futures;
import org.apache.pekko.persistence.AtomicWrite;
import org.apache.pekko.persistence.PersistentRepr;
import org.apache.pekko.persistence.journal.Tagged;
import org.apache.pekko.persistence.journal.japi.AsyncWriteJournal;
import org.apache.pekko.serialization.Serialization;
import org.apache.pekko.serialization.SerializationExtension;
import org.apache.pekko.serialization.Serializer;
import org.apache.pekko.serialization.Serializers;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import scala.concurrent.Future;
import scala.concurrent.Promise;
import scala.jdk.javaapi.CollectionConverters;

/**
 * Rota's event journal: pekko-persistence-jdbc's tables and row format ({@code event_journal},
 * {@code event_tag}, migrations V1 and V5), so its read journal, Rota's projections and the events
 * stream read what this writes, with a write path built for many small concurrent writes.
 *
 * <p>Every agent command that changes the agent persists one event before it is answered, so the
 * journal write is on the path of every notification, claim and completion. The plugin's own write
 * path runs each write as a Slick transaction of several steps, each scheduled on the next free
 * thread, and batches writes only once its eight parallel transactions are all busy: measured on
 * two cores, 6 ms per write alone and about 1,500 writes/s at 64 concurrent writers. Here writes
 * queue for a few writer threads; each takes everything queued (up to {@code max-batch-rows} events
 * of any number of agents) and commits it at once, so a busy journal commits more per transaction
 * instead of waiting for a free one. On PostgreSQL the batch is one auto-committed statement (the
 * events and their tags as arrays: one round trip); elsewhere it is a transaction of a batched
 * event insert, a batched tag insert and a commit. Nothing is acknowledged before its transaction
 * committed. If a transaction of several writes fails, each is retried alone, so one agent's
 * failure (a duplicate sequence number) does not fail the others.
 *
 * <p>Replays and sequence-number reads run on their own threads and connections, so a burst of
 * recoveries does not delay writes. Configured under {@code rota-journal} (the server's {@code
 * persistence.conf}).
 */
public final class RotaJournal extends AsyncWriteJournal {
  private static final Logger log = LoggerFactory.getLogger(RotaJournal.class);

  private static final String INSERT_EVENT =
      "insert into event_journal (deleted, persistence_id, sequence_number, writer,"
          + " write_timestamp, adapter_manifest, event_payload, event_ser_id, event_ser_manifest,"
          + " meta_payload, meta_ser_id, meta_ser_manifest)"
          + " values (false, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";
  private static final String INSERT_EVENTS_AND_TAGS =
      "with e as (insert into event_journal (deleted, persistence_id, sequence_number, writer,"
          + " write_timestamp, adapter_manifest, event_payload, event_ser_id, event_ser_manifest,"
          + " meta_payload, meta_ser_id, meta_ser_manifest)"
          + " select false, pid, seq, w, ts, am, ep, esi, esm, mp, msi, mm from unnest(?::text[],"
          + " ?::int8[], ?::text[], ?::int8[], ?::text[], ?::bytea[], ?::int4[], ?::text[],"
          + " ?::bytea[], ?::int4[], ?::text[]) with ordinality"
          + " as r(pid, seq, w, ts, am, ep, esi, esm, mp, msi, mm, n) order by n"
          + " returning ordering, persistence_id, sequence_number)"
          + " insert into event_tag (event_id, tag) select e.ordering, t.tag from e"
          + " join unnest(?::text[], ?::int8[], ?::text[]) as t(pid, seq, tag)"
          + " on e.persistence_id = t.pid and e.sequence_number = t.seq";
  private static final String INSERT_TAG = "insert into event_tag (event_id, tag) values (?, ?)";
  private static final String REPLAY =
      "select sequence_number, writer, write_timestamp, adapter_manifest, event_payload,"
          + " event_ser_id, event_ser_manifest, meta_payload, meta_ser_id, meta_ser_manifest"
          + " from event_journal where persistence_id = ? and sequence_number >= ?"
          + " and sequence_number <= ? and deleted = false order by sequence_number limit ?";
  private static final String HIGHEST =
      "select max(sequence_number) from event_journal where persistence_id = ?";
  private static final String DELETE =
      "update event_journal set deleted = true where persistence_id = ? and sequence_number <= ?";

  /** One event ready for its row: serialized, with its tags. */
  private record Row(
      String persistenceId,
      long sequenceNr,
      String writer,
      long timestamp,
      String adapterManifest,
      byte[] payload,
      int serializerId,
      String serializerManifest,
      byte[] metaPayload,
      Integer metaSerializerId,
      String metaManifest,
      List<String> tags,
      AgentEvents.Event event) {}

  /** One {@code doAsyncWriteMessages} call: its rows, its per-write results, its promise. */
  private record WriteRequest(
      List<Row> rows,
      List<Optional<Exception>> results,
      Promise<Iterable<Optional<Exception>>> done,
      long arrivedNanos) {}

  private final Serialization serialization;
  private final RotaMetrics metrics;
  private final WriteGuard writeGuard;
  private final HikariDataSource dataSource;
  private final BlockingQueue<WriteRequest> queue = new LinkedBlockingQueue<>();
  private final List<Thread> writers = new ArrayList<>();
  private final ExecutorService readers;
  private final int maxBatchRows;
  private final long maxQueueWaitNanos;
  private final int writerCount;

  /** Writes the read model in each write's transaction; null when a projection does. */
  private final ReadModelUpdate readModel;

  private volatile Boolean postgres;
  private volatile boolean running = true;

  /** Each writer's own counter rows, taken when the first writer connects. */
  private volatile int[] counterSlots;

  public RotaJournal(Config config) {
    this.serialization = SerializationExtension.get(context().system());
    this.metrics = RotaMetrics.get(Adapter.toTyped(context().system()));
    this.writeGuard = WriteGuard.get(Adapter.toTyped(context().system()));
    this.maxBatchRows = config.getInt("max-batch-rows");
    this.maxQueueWaitNanos = config.getDuration("max-queue-wait").toNanos();
    Config system = context().system().settings().config();
    this.readModel =
        writesReadModel(system)
            ? new ReadModelUpdate(system.getInt("rota.partitions"), metrics::readModelEventSkipped)
            : null;
    this.writerCount = config.getInt("writers");
    int readerCount = config.getInt("readers");
    HikariConfig hikari = new HikariConfig();
    hikari.setPoolName("rota-journal");
    hikari.setDriverClassName(config.getString("db.driver"));
    hikari.setJdbcUrl(config.getString("db.url"));
    hikari.setUsername(config.getString("db.user"));
    if (config.hasPath("db.password")) {
      hikari.setPassword(config.getString("db.password"));
    }
    hikari.setMaximumPoolSize(writerCount + readerCount);
    hikari.setConnectionTimeout(config.getDuration("db.connection-timeout").toMillis());
    if (SessionLimits.appliesTo(hikari.getJdbcUrl())) {
      hikari.setDataSourceProperties(SessionLimits.from(system).asProperties());
    }
    this.dataSource = new HikariDataSource(hikari);
    this.readers =
        Executors.newFixedThreadPool(
            readerCount,
            r -> {
              Thread t = new Thread(r, "rota-journal-reader");
              t.setDaemon(true);
              return t;
            });
    for (int i = 0; i < writerCount; i++) {
      int index = i;
      Thread writer = new Thread(() -> writeLoop(index), "rota-journal-writer-" + (i + 1));
      writer.setDaemon(true);
      writers.add(writer);
      writer.start();
    }
  }

  /**
   * Whether this journal writes the read model itself (decision 27): {@code rota.read-model.writer
   * = journal}, the default. Otherwise a projection per partition reads the events back.
   */
  public static boolean writesReadModel(Config config) {
    return config.hasPath("rota.read-model.writer")
        && "journal".equals(config.getString("rota.read-model.writer"));
  }

  /**
   * Whether the node's configured journal is this one and writes the read model, so no projection
   * needs to.
   */
  public static boolean writesReadModelOf(Config config) {
    String plugin = config.getString("pekko.persistence.journal.plugin");
    return writesReadModel(config)
        && config.hasPath(plugin + ".class")
        && RotaJournal.class.getName().equals(config.getString(plugin + ".class"));
  }

  // ---- writing ----

  @Override
  public Future<Iterable<Optional<Exception>>> doAsyncWriteMessages(
      Iterable<AtomicWrite> messages) {
    List<Row> rows = new ArrayList<>();
    List<Optional<Exception>> results = new ArrayList<>();
    for (AtomicWrite write : messages) {
      List<Row> writeRows = new ArrayList<>();
      try {
        for (PersistentRepr repr : CollectionConverters.asJava(write.payload())) {
          writeRows.add(row(repr));
        }
        rows.addAll(writeRows);
        results.add(Optional.empty());
      } catch (Exception e) {
        // Not serializable: this write is rejected, the others go ahead.
        results.add(Optional.of(e));
      }
    }
    Promise<Iterable<Optional<Exception>>> done = Futures.promise();
    if (rows.isEmpty()) {
      done.success(results);
    } else {
      queue.add(new WriteRequest(rows, results, done, System.nanoTime()));
    }
    return done.future();
  }

  private Row row(PersistentRepr repr) {
    Object payload = repr.payload();
    List<String> tags = List.of();
    if (payload instanceof Tagged tagged) {
      payload = tagged.payload();
      tags = List.copyOf(CollectionConverters.asJava(tagged.tags()));
    }
    Serializer serializer = serialization.findSerializerFor(payload);
    byte[] bytes = serializer.toBinary(payload);
    byte[] metaBytes = null;
    Integer metaId = null;
    String metaManifest = null;
    if (repr.metadata().isDefined()) {
      Object meta = repr.metadata().get();
      Serializer metaSerializer = serialization.findSerializerFor(meta);
      metaBytes = metaSerializer.toBinary(meta);
      metaId = metaSerializer.identifier();
      metaManifest = Serializers.manifestFor(metaSerializer, meta);
    }
    return new Row(
        repr.persistenceId(),
        repr.sequenceNr(),
        repr.writerUuid(),
        repr.timestamp() > 0 ? repr.timestamp() : System.currentTimeMillis(),
        repr.manifest(),
        bytes,
        serializer.identifier(),
        Serializers.manifestFor(serializer, payload),
        metaBytes,
        metaId,
        metaManifest,
        tags,
        payload instanceof AgentEvents.Event event ? event : null);
  }

  /**
   * One writer thread, the {@code writer}-th: its counter rows are {@code counterSlots[writer]}.
   */
  private void writeLoop(int writer) {
    List<WriteRequest> batch = new ArrayList<>();
    Connection connection = null;
    while (running) {
      try {
        WriteRequest first = queue.poll(200, TimeUnit.MILLISECONDS);
        if (first == null) {
          continue;
        }
        batch.add(first);
        int rows = first.rows().size();
        WriteRequest next;
        while (rows < maxBatchRows && (next = queue.poll()) != null) {
          batch.add(next);
          rows += next.rows().size();
        }
        dropExpired(batch);
        if (batch.isEmpty()) {
          continue;
        }
        Optional<String> refusal = writeGuard.refusal();
        if (refusal.isPresent()) {
          fail(batch, new IllegalStateException("write refused: " + refusal.get()));
          continue;
        }
        if (connection == null || connection.isClosed()) {
          connection = openWriter();
        }
        connection = commit(connection, batch, counterSlots == null ? -1 : counterSlots[writer]);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      } catch (Exception e) {
        log.error("journal writer failed", e);
        fail(batch, e);
        connection = closeQuietly(connection);
      } finally {
        batch.clear();
      }
    }
    closeQuietly(connection);
  }

  /**
   * Fails, without starting them, the writes that waited longer than {@code max-queue-wait}: their
   * callers (an HTTP request that answers 503 after {@code rota.http.ask-timeout}) have given up or
   * are about to, and a write committed after its caller was told it failed would be a notification
   * accepted twice on a retry, or a grant nobody receives. A write failed here is certainly not
   * committed; the agent restarts from the journal as after any failed write.
   */
  private void dropExpired(List<WriteRequest> batch) {
    long now = System.nanoTime();
    List<WriteRequest> expired = new ArrayList<>();
    batch.removeIf(
        request -> {
          boolean late = now - request.arrivedNanos() > maxQueueWaitNanos;
          if (late) {
            expired.add(request);
          }
          return late;
        });
    if (!expired.isEmpty()) {
      log.warn(
          "{} write(s) waited longer than {} ms for a writer and were not started",
          expired.size(),
          maxQueueWaitNanos / 1_000_000);
      fail(expired, new IllegalStateException("write not started: waited too long for a writer"));
    }
  }

  /** Commits the batch (or each of its writes alone, if together they fail); answers them all. */
  private Connection commit(Connection connection, List<WriteRequest> batch, int slot) {
    try {
      insert(connection, batch, slot);
      succeed(batch);
      return connection;
    } catch (SQLException e) {
      connection = rollback(connection);
      if (batch.size() == 1) {
        fail(batch, e);
        return connection;
      }
    }
    for (WriteRequest request : batch) {
      try {
        if (connection == null) {
          connection = openWriter();
        }
        insert(connection, List.of(request), slot);
        succeed(List.of(request));
      } catch (SQLException e) {
        fail(List.of(request), e);
        connection = rollback(connection);
      }
    }
    return connection;
  }

  /**
   * A writer's connection. On PostgreSQL a batch is one statement, committed by itself
   * (auto-commit); elsewhere a batch is a transaction of two batched inserts and a commit.
   */
  private Connection openWriter() throws SQLException {
    Connection connection = dataSource.getConnection();
    if (postgres == null) {
      String product = connection.getMetaData().getDatabaseProductName();
      postgres = "PostgreSQL".equals(product);
      if ("H2".equals(product)) {
        writeThroughOnCommit(connection);
      }
    }
    if (readModel != null && counterSlots == null) {
      allocateCounterSlots(connection);
    }
    connection.setAutoCommit(postgres && readModel == null);
    return connection;
  }

  /**
   * H2 keeps committed changes in memory and writes them to its file up to {@code WRITE_DELAY} (500
   * ms) later, so a process killed right after a commit lost what it had acknowledged (measured:
   * 27-125 notifications per kill -9). With a write delay of 0 every commit writes its changes to
   * the file before it returns, so an acknowledged write survives the process; the setting is the
   * database's, so it covers the node's other pools too. It does not force the file to the disk:
   * surviving the machine's crash takes PostgreSQL (docs/configuration.md).
   */
  private static void writeThroughOnCommit(Connection connection) throws SQLException {
    boolean autoCommit = connection.getAutoCommit();
    connection.setAutoCommit(true);
    try (Statement s = connection.createStatement()) {
      s.execute("SET WRITE_DELAY 0");
    } catch (SQLException e) {
      log.warn(
          "could not make H2 write each commit through (SET WRITE_DELAY 0 needs an admin user);"
              + " a crash may lose the last half second of acknowledged writes: {}",
          e.getMessage());
    } finally {
      connection.setAutoCommit(autoCommit);
    }
  }

  /** Once per journal, by the first writer to connect; the others wait for it. */
  private synchronized void allocateCounterSlots(Connection connection) throws SQLException {
    if (counterSlots == null) {
      connection.setAutoCommit(true);
      counterSlots = readModel.allocateCounterSlots(connection, writerCount, postgres);
      log.info("journal counter slots {}", java.util.Arrays.toString(counterSlots));
    }
  }

  private void insert(Connection connection, List<WriteRequest> batch, int slot)
      throws SQLException {
    List<Row> rows = new ArrayList<>();
    batch.forEach(request -> rows.addAll(request.rows()));
    if (postgres) {
      insertInOneStatement(connection, rows);
      if (readModel != null) {
        applyToReadModel(connection, rows, slot);
        connection.commit();
      }
      return;
    }
    long[] orderings = new long[rows.size()];
    try (PreparedStatement insert =
        connection.prepareStatement(INSERT_EVENT, new String[] {"ordering"})) {
      for (Row row : rows) {
        bind(insert, row);
        insert.addBatch();
      }
      insert.executeBatch();
      int n = 0;
      try (ResultSet keys = insert.getGeneratedKeys()) {
        while (keys.next() && n < orderings.length) {
          orderings[n++] = keys.getLong(1);
        }
      }
      if (n != rows.size()) {
        throw new SQLException(
            "the driver returned " + n + " generated orderings for " + rows.size() + " events");
      }
    }
    boolean anyTags = rows.stream().anyMatch(row -> !row.tags().isEmpty());
    if (anyTags) {
      try (PreparedStatement tag = connection.prepareStatement(INSERT_TAG)) {
        for (int i = 0; i < rows.size(); i++) {
          for (String t : rows.get(i).tags()) {
            tag.setLong(1, orderings[i]);
            tag.setString(2, t);
            tag.addBatch();
          }
        }
        tag.executeBatch();
      }
    }
    if (readModel != null) {
      applyToReadModel(connection, rows, slot);
    }
    connection.commit();
  }

  /** The read model's share of the write, in the same transaction: exactly once by design. */
  private void applyToReadModel(Connection connection, List<Row> rows, int slot)
      throws SQLException {
    List<ReadModelUpdate.Change> changes = new ArrayList<>(rows.size());
    for (Row row : rows) {
      if (row.event() != null) {
        changes.add(new ReadModelUpdate.Change(row.persistenceId(), row.sequenceNr(), row.event()));
      }
    }
    readModel.apply(connection, changes, slot);
  }

  /**
   * PostgreSQL: the events and their tags in one statement (the events as arrays, unnested in
   * order, so orderings follow the write order; the tags joined to the orderings the insert
   * returns), so a batch costs one round trip and its commit, not three.
   */
  private static void insertInOneStatement(Connection connection, List<Row> rows)
      throws SQLException {
    int n = rows.size();
    String[] ids = new String[n];
    Long[] sequenceNrs = new Long[n];
    String[] writers = new String[n];
    Long[] timestamps = new Long[n];
    String[] adapterManifests = new String[n];
    byte[][] payloads = new byte[n][];
    Integer[] serializerIds = new Integer[n];
    String[] serializerManifests = new String[n];
    byte[][] metaPayloads = new byte[n][];
    Integer[] metaSerializerIds = new Integer[n];
    String[] metaManifests = new String[n];
    List<String> tagIds = new ArrayList<>();
    List<Long> tagSequenceNrs = new ArrayList<>();
    List<String> tags = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      Row row = rows.get(i);
      ids[i] = row.persistenceId();
      sequenceNrs[i] = row.sequenceNr();
      writers[i] = row.writer();
      timestamps[i] = row.timestamp();
      adapterManifests[i] = row.adapterManifest();
      payloads[i] = row.payload();
      serializerIds[i] = row.serializerId();
      serializerManifests[i] = row.serializerManifest();
      metaPayloads[i] = row.metaPayload();
      metaSerializerIds[i] = row.metaSerializerId();
      metaManifests[i] = row.metaManifest();
      for (String tag : row.tags()) {
        tagIds.add(row.persistenceId());
        tagSequenceNrs.add(row.sequenceNr());
        tags.add(tag);
      }
    }
    try (PreparedStatement insert = connection.prepareStatement(INSERT_EVENTS_AND_TAGS)) {
      int p = 1;
      insert.setArray(p++, connection.createArrayOf("text", ids));
      insert.setArray(p++, connection.createArrayOf("int8", sequenceNrs));
      insert.setArray(p++, connection.createArrayOf("text", writers));
      insert.setArray(p++, connection.createArrayOf("int8", timestamps));
      insert.setArray(p++, connection.createArrayOf("text", adapterManifests));
      insert.setArray(p++, connection.createArrayOf("bytea", payloads));
      insert.setArray(p++, connection.createArrayOf("int4", serializerIds));
      insert.setArray(p++, connection.createArrayOf("text", serializerManifests));
      insert.setArray(p++, connection.createArrayOf("bytea", metaPayloads));
      insert.setArray(p++, connection.createArrayOf("int4", metaSerializerIds));
      insert.setArray(p++, connection.createArrayOf("text", metaManifests));
      insert.setArray(p++, connection.createArrayOf("text", tagIds.toArray(String[]::new)));
      insert.setArray(p++, connection.createArrayOf("int8", tagSequenceNrs.toArray(Long[]::new)));
      insert.setArray(p, connection.createArrayOf("text", tags.toArray(String[]::new)));
      insert.executeUpdate();
    }
  }

  private static void bind(PreparedStatement s, Row row) throws SQLException {
    s.setString(1, row.persistenceId());
    s.setLong(2, row.sequenceNr());
    s.setString(3, row.writer());
    s.setLong(4, row.timestamp());
    s.setString(5, row.adapterManifest());
    s.setBytes(6, row.payload());
    s.setInt(7, row.serializerId());
    s.setString(8, row.serializerManifest());
    s.setBytes(9, row.metaPayload());
    if (row.metaSerializerId() == null) {
      s.setNull(10, java.sql.Types.INTEGER);
    } else {
      s.setInt(10, row.metaSerializerId());
    }
    s.setString(11, row.metaManifest());
  }

  private void succeed(List<WriteRequest> batch) {
    long now = System.nanoTime();
    int events = 0;
    for (WriteRequest request : batch) {
      request.done().trySuccess(request.results());
      metrics.journalWritten(Duration.ofNanos(now - request.arrivedNanos()));
      events += request.rows().size();
    }
    metrics.journalCommitted(events);
  }

  private static void fail(List<WriteRequest> batch, Exception e) {
    for (WriteRequest request : batch) {
      request.done().tryFailure(e);
    }
  }

  private static Connection rollback(Connection connection) {
    try {
      if (connection.getAutoCommit()) {
        return connection;
      }
      connection.rollback();
      return connection;
    } catch (SQLException e) {
      return closeQuietly(connection);
    }
  }

  private static Connection closeQuietly(Connection connection) {
    if (connection != null) {
      try {
        connection.close();
      } catch (SQLException e) {
        log.debug("closing a journal connection failed", e);
      }
    }
    return null;
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
    running = false;
    for (Thread writer : writers) {
      writer.join(5_000);
    }
    WriteRequest left;
    while ((left = queue.poll()) != null) {
      left.done().tryFailure(new IllegalStateException("journal stopped"));
    }
    readers.shutdown();
    dataSource.close();
    super.postStop();
  }
}
