package dev.rota.cluster.journal;

import dev.rota.cluster.metrics.RotaMetrics;
import dev.rota.cluster.system.WriteGuard;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The journal's write path: a few writer threads, each taking everything queued (up to {@code
 * max-batch-rows} events of any number of agents) and committing it as one transaction, so a busy
 * journal commits more per transaction instead of waiting for a free one. On PostgreSQL without a
 * read model the batch is one auto-committed statement; otherwise a transaction of the event
 * inserts, the read model's statements ({@link ReadModelSink}) and a commit. Nothing is
 * acknowledged before its transaction committed. If a transaction of several writes fails, each is
 * retried alone, so one agent's failure (a duplicate sequence number) does not fail the others.
 */
final class BatchWriter {
  private static final Logger log = LoggerFactory.getLogger(BatchWriter.class);

  /** One journal write (an {@code AtomicWrite} group): its rows and who waits for them. */
  private record WriteRequest(
      List<EventRow> rows, CompletableFuture<Void> done, long arrivedNanos) {}

  /** The writer's bounds: {@code writers}, {@code max-batch-rows}, {@code max-queue-wait}. */
  record Settings(int writers, int maxBatchRows, Duration maxQueueWait) {}

  private final DataSource dataSource;
  private final Optional<ReadModelSink> sink;
  private final RotaMetrics metrics;
  private final WriteGuard writeGuard;
  private final Settings settings;
  private final long maxQueueWaitNanos;
  private final BlockingQueue<WriteRequest> queue = new LinkedBlockingQueue<>();
  private final List<Thread> threads = new ArrayList<>();

  private volatile Boolean postgres;
  private volatile boolean running = true;

  /** Each writer's slot of the sink, claimed when the first writer connects. */
  private volatile int[] slots;

  BatchWriter(
      DataSource dataSource,
      Optional<ReadModelSink> sink,
      RotaMetrics metrics,
      WriteGuard writeGuard,
      Settings settings) {
    this.dataSource = dataSource;
    this.sink = sink;
    this.metrics = metrics;
    this.writeGuard = writeGuard;
    this.settings = settings;
    this.maxQueueWaitNanos = settings.maxQueueWait().toNanos();
    for (int i = 0; i < settings.writers(); i++) {
      int index = i;
      Thread writer = new Thread(() -> writeLoop(index), "rota-journal-writer-" + (i + 1));
      writer.setDaemon(true);
      threads.add(writer);
      writer.start();
    }
  }

  /** Queues one write's rows; completes once they are committed, or fails if they are not. */
  CompletableFuture<Void> submit(List<EventRow> rows) {
    CompletableFuture<Void> done = new CompletableFuture<>();
    queue.add(new WriteRequest(rows, done, System.nanoTime()));
    return done;
  }

  /** Stops the writers after their current batch and fails what is still queued. */
  void stop() throws InterruptedException {
    running = false;
    for (Thread writer : threads) {
      writer.join(5_000);
    }
    WriteRequest left;
    while ((left = queue.poll()) != null) {
      left.done().completeExceptionally(new IllegalStateException("journal stopped"));
    }
  }

  /** One writer thread, the {@code writer}-th: its slot is {@code slots[writer]}. */
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
        while (rows < settings.maxBatchRows() && (next = queue.poll()) != null) {
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
        connection = commit(connection, batch, slots == null ? -1 : slots[writer], true);
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

  /**
   * Commits the batch (or each of its writes alone, if together they fail); answers them all. A
   * batch that found no partition is written again whole once partitions are there ({@code
   * mayCreate}: once), whoever created them: several writers meet the end of the partitions at
   * once.
   */
  private Connection commit(
      Connection connection, List<WriteRequest> batch, int slot, boolean mayCreate) {
    try {
      insert(connection, batch, slot);
      succeed(batch);
      return connection;
    } catch (SQLException e) {
      connection = rollback(connection);
      if (mayCreate && noPartition(e) && partitionsAhead(connection)) {
        return commit(connection, batch, slot, false);
      }
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
   * PostgreSQL's answer to a row whose ordering no partition takes (decision 124): the maintenance
   * that creates them ahead of the writes fell behind a burst, or is not running.
   */
  private static boolean noPartition(SQLException e) {
    return "23514".equals(e.getSQLState())
        && e.getMessage() != null
        && e.getMessage().contains("no partition");
  }

  /**
   * Makes sure partitions lie ahead of the writes, creating them unless another writer or the
   * maintenance just did; false if that failed.
   */
  private boolean partitionsAhead(Connection connection) {
    if (connection == null) {
      return false;
    }
    try {
      log.warn(
          "a journal write found no partition for its orderings: creating them in the write's"
              + " path (the maintenance fell behind the writes)");
      JournalPartitions.ensureAhead(connection, 2, JournalPartitions.burstSize(connection));
      return true;
    } catch (SQLException e) {
      log.error("could not create a journal partition for the writes", e);
      return false;
    }
  }

  /** The events, then the read model's share in the same transaction: exactly once by design. */
  private void insert(Connection connection, List<WriteRequest> batch, int slot)
      throws SQLException {
    List<EventRow> rows = new ArrayList<>();
    batch.forEach(request -> rows.addAll(request.rows()));
    EventInserts.insert(connection, rows, postgres);
    if (sink.isPresent()) {
      sink.get().apply(connection, rows.stream().map(EventRow::persisted).toList(), slot);
    }
    if (!connection.getAutoCommit()) {
      connection.commit();
    }
  }

  /**
   * A writer's connection. On PostgreSQL without a read model a batch is one statement, committed
   * by itself (auto-commit); otherwise a batch is a transaction ended by an explicit commit.
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
    if (sink.isPresent() && slots == null) {
      claimSlots(connection, sink.get());
    }
    connection.setAutoCommit(postgres && sink.isEmpty());
    return connection;
  }

  /**
   * H2 keeps committed changes in memory and writes them to its file up to {@code WRITE_DELAY} (500
   * ms) later, so a process killed right after a commit loses what it had acknowledged. With a
   * write delay of 0 every commit writes its changes to the file before it returns, so an
   * acknowledged write survives the process; the setting is the database's, so it covers the node's
   * other pools too. It does not force the file to the disk: surviving the machine's crash takes
   * PostgreSQL (docs/configuration.md).
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
  private synchronized void claimSlots(Connection connection, ReadModelSink sink)
      throws SQLException {
    if (slots == null) {
      connection.setAutoCommit(true);
      slots = sink.claimWriterSlots(connection, settings.writers());
      log.info("journal counter slots {}", Arrays.toString(slots));
    }
  }

  private void succeed(List<WriteRequest> batch) {
    long now = System.nanoTime();
    int events = 0;
    for (WriteRequest request : batch) {
      request.done().complete(null);
      metrics.journalWritten(Duration.ofNanos(now - request.arrivedNanos()));
      events += request.rows().size();
    }
    metrics.journalCommitted(events);
  }

  private static void fail(List<WriteRequest> batch, Exception e) {
    for (WriteRequest request : batch) {
      request.done().completeExceptionally(e);
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
}
