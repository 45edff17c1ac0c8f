package dev.rota.faults.harness;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.faults.check.HistoryChecker;
import dev.rota.faults.check.Verdict;
import dev.rota.faults.history.Event;
import dev.rota.faults.history.Event.Granted;
import dev.rota.faults.history.History;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * {@code kill -9} of a node while journal retention is between the two halves of a {@code DETACH
 * PARTITION … CONCURRENTLY} loses nothing, and the next run finishes the detach (decision 124).
 *
 * <p>One node on the suite's PostgreSQL with a retention of 20 s, partitions of a few hundred
 * orderings and maintenance every second, under the fault workload (producers and runners over
 * HTTP, every attempt recorded). The hook is the one a long replay gives in production: the test
 * holds a transaction that has read the journal, so a concurrent detach, once its first transaction
 * has marked the partition pending, waits for that reader. When {@code pg_stat_activity} shows the
 * detach waiting on a partition the run wrote to, the node is killed; PostgreSQL ends the orphaned
 * backend ({@code client_connection_check_interval}, set for this server), the partition stays
 * "detach pending", and only then is the reader let go. Then: started again, the partition must be
 * gone (finalized and dropped), every agent served again, and the history checker must find nothing
 * lost, duplicated or stale after the load drains.
 */
class KillDuringPartitionDropTest {
  private static final int AGENTS = 16;
  private static final Duration DETACH_TIMEOUT = Duration.ofSeconds(120);

  @Test
  void aKillDuringADetachLosesNothingAndTheNextRunFinishesIt() throws Exception {
    Path dir = out().resolve("kill-during-drop");
    History history = new History();
    try (FaultPostgres db = FaultPostgres.start(dir.resolve("postgres"));
        Connection monitor = connect(db)) {
      execute(monitor, "alter system set client_connection_check_interval = '200ms'");
      execute(monitor, "select pg_reload_conf()");
      Path config =
          ConfigOverlay.write(
              config(),
              "rota.journal { retention = 20s, maintenance-interval = 1s,"
                  + " partition-min-rows = 300 }\nrota.agent.snapshot-every = 50",
              dir,
              "drop-node.conf");
      try (FaultCluster cluster = FaultCluster.start(1, jar(), config, db, dir)) {
        NodeProcess node = cluster.node(1);
        long firstOrdering = JournalProbe.skipInitialPartitions(monitor, Duration.ofSeconds(30));
        Workload workload = new Workload(cluster, history, AGENTS, 4);
        workload.registerAgents();
        workload.start();

        Caught caught = killDuringDetach(monitor, cluster, node, firstOrdering);
        System.out.printf(
            "[kill-drop] killed while %s (%d rows) was detach pending%n",
            caught.partition().name(), caught.rows());
        assertTrue(caught.pendingAfterKill(), caught.partition() + " was not left detach pending");
        assertTrue(caught.rows() > 0, caught.partition() + " held no rows of the run");

        node.start();
        cluster.awaitReady(node);
        cluster.route(node);
        long restartedAt = System.currentTimeMillis();
        awaitGone(monitor, caught.partition().name(), Duration.ofSeconds(60));

        FaultCluster.sleep(Duration.ofSeconds(8));
        workload.stopProducers();
        boolean drained = workload.drain(Duration.ofSeconds(90));
        workload.stopRunners();
        workload.recordFinalState();
        history.write(dir.resolve("history.jsonl"));
        Verdict verdict = HistoryChecker.check(history.events());
        System.out.printf(
            "[kill-drop] %d acknowledged, %d completed, lost %d; drained %s%n",
            verdict.acknowledged(), verdict.completed(), verdict.lost().size(), drained);
        assertTrue(verdict.lost().isEmpty(), "lost: " + verdict.lost());
        assertTrue(verdict.safe(), "violations: " + verdict.violations());
        assertEquals(
            Set.copyOf(workload.agents()),
            servedSince(history.events(), restartedAt),
            "agents not served after the restart");
      }
    }
  }

  /** The partition caught, its rows, and whether it was still detach pending after the kill. */
  private record Caught(JournalProbe.Partition partition, long rows, boolean pendingAfterKill) {}

  /**
   * Holds a reader of the journal until a detach of a partition of the run's orderings waits for
   * it, then kills the node; a detach of one of V13's initial, empty partitions is let through.
   */
  private static Caught killDuringDetach(
      Connection monitor, FaultCluster cluster, NodeProcess node, long firstOrdering)
      throws SQLException, InterruptedException {
    long deadline = System.nanoTime() + DETACH_TIMEOUT.toNanos();
    while (System.nanoTime() < deadline) {
      try (Connection reader =
          DriverManager.getConnection(monitor.getMetaData().getURL(), "postgres", "")) {
        reader.setAutoCommit(false);
        execute(reader, "select 1 from event_journal limit 1");
        Optional<JournalProbe.Partition> waiting = awaitWaitingDetach(monitor, deadline);
        if (waiting.isEmpty()) {
          break;
        }
        JournalProbe.Partition partition = waiting.get();
        if (partition.from() < firstOrdering) {
          reader.rollback(); // one of the initial partitions: let it go, wait for the next
          awaitNoDetach(monitor, Duration.ofSeconds(30));
          continue;
        }
        cluster.unroute(node);
        node.kill9();
        if (node.awaitExit(Duration.ofSeconds(10)).isEmpty()) {
          throw new IllegalStateException(node + " did not die on SIGKILL");
        }
        awaitNoDetach(monitor, Duration.ofSeconds(30));
        boolean pending =
            JournalProbe.partitions(monitor).stream()
                .anyMatch(p -> p.name().equals(partition.name()) && p.detachPending());
        long rows = count(monitor, partition.name());
        reader.rollback();
        return new Caught(partition, rows, pending);
      }
    }
    throw new IllegalStateException("no detach of the run's partitions within " + DETACH_TIMEOUT);
  }

  /** A partition marked detach pending while a backend still runs the detach. */
  private static Optional<JournalProbe.Partition> awaitWaitingDetach(
      Connection monitor, long deadline) throws SQLException, InterruptedException {
    while (System.nanoTime() < deadline) {
      if (JournalProbe.detachBackends(monitor) > 0) {
        Optional<JournalProbe.Partition> pending =
            JournalProbe.partitions(monitor).stream()
                .filter(JournalProbe.Partition::detachPending)
                .findFirst();
        if (pending.isPresent()) {
          return pending;
        }
      }
      Thread.sleep(20);
    }
    return Optional.empty();
  }

  private static void awaitNoDetach(Connection monitor, Duration timeout)
      throws SQLException, InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (JournalProbe.detachBackends(monitor) > 0) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("the detach's backend still runs after " + timeout);
      }
      Thread.sleep(50);
    }
  }

  /** Until the partition is neither attached, pending nor a detached table left behind. */
  private static void awaitGone(Connection monitor, String partition, Duration timeout)
      throws SQLException, InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (JournalProbe.exists(monitor, partition)) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError(
            partition + " still exists " + timeout + " after the restart: the detach not finished");
      }
      Thread.sleep(200);
    }
    assertTrue(
        JournalProbe.partitions(monitor).stream().noneMatch(JournalProbe.Partition::detachPending),
        "a detach still pending after the restart");
  }

  private static Set<String> servedSince(List<Event> events, long since) {
    Set<String> served = new HashSet<>();
    for (Event e : events) {
      if (e instanceof Granted g && g.endMs() > since) {
        served.add(g.agentId());
      }
    }
    return served;
  }

  private static long count(Connection c, String table) throws SQLException {
    try (Statement s = c.createStatement();
        var rs = s.executeQuery("select count(*) from " + table)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  private static void execute(Connection c, String sql) throws SQLException {
    try (Statement s = c.createStatement()) {
      s.execute(sql);
    }
  }

  private static Connection connect(FaultPostgres db) throws SQLException {
    return DriverManager.getConnection(db.jdbcUrl(), "postgres", "");
  }

  private static Path out() {
    return Path.of(System.getProperty("rota.faults.out", "target/faults"));
  }

  private static Path jar() {
    return Path.of(System.getProperty("rota.faults.jar", "../rota-server/target/rota-server.jar"))
        .toAbsolutePath();
  }

  private static Path config() {
    return Path.of(System.getProperty("rota.faults.config", "../../config/cluster-node.conf"))
        .toAbsolutePath();
  }
}
