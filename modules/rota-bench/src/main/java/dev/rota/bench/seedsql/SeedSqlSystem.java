package dev.rota.bench.seedsql;

import dev.rota.bench.system.AgentIds;
import dev.rota.bench.system.BenchDatabase;
import dev.rota.bench.system.BenchSystem;
import dev.rota.bench.system.InboxSeed;
import dev.rota.bench.system.RunnerListener;
import dev.rota.bench.system.RunnerSpec;
import dev.rota.bench.system.TrialShape;
import dev.rota.core.model.RunnerMode;
import java.io.IOException;
import java.io.InputStream;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;
import org.postgresql.PGConnection;
import org.postgresql.copy.CopyManager;

/**
 * The seed's coordinator (ADR-011) as plain SQL over JDBC: runner threads with a connection each,
 * inbox-first by unread count, stalest second, row locks with {@code SKIP LOCKED} as leases. See
 * {@link SeedSqlCoordinator} for the statements.
 */
public final class SeedSqlSystem implements BenchSystem {

  private static final int COPY_CHUNK_ROWS = 50_000;

  private final long idlePollMillis;
  private final AtomicLong errors = new AtomicLong();
  private final List<SeedSqlRunner> runners = new ArrayList<>();
  private final List<Thread> runnerThreads = new ArrayList<>();
  private final ConcurrentLinkedQueue<Connection> publisherConnections =
      new ConcurrentLinkedQueue<>();
  private final ThreadLocal<Connection> publisherConnection = new ThreadLocal<>();
  private BenchDatabase database;

  /** {@code idlePollMillis}: how long a runner that found no work waits before asking again. */
  public SeedSqlSystem(long idlePollMillis) {
    this.idlePollMillis = idlePollMillis;
  }

  @Override
  public Set<RunnerMode> supportedModes() {
    return EnumSet.allOf(RunnerMode.class);
  }

  @Override
  public void setUp(BenchDatabase database, TrialShape shape) throws Exception {
    this.database = database;
    try (Connection c = database.connect();
        Statement s = c.createStatement()) {
      s.execute(schema());
    }
  }

  @Override
  public void seedAgents(int count) throws Exception {
    StringBuilder rows = new StringBuilder();
    try (Connection c = database.connect()) {
      CopyManager copy = c.unwrap(PGConnection.class).getCopyAPI();
      for (int i = 0; i < count; i++) {
        rows.append(AgentIds.id(i)).append('\n');
        if ((i + 1) % COPY_CHUNK_ROWS == 0) {
          copy.copyIn("COPY agents (id) FROM STDIN", new StringReader(rows.toString()));
          rows.setLength(0);
        }
      }
      copy.copyIn("COPY agents (id) FROM STDIN", new StringReader(rows.toString()));
      analyze(c);
    }
  }

  @Override
  public void seedNotifications(InboxSeed seed) throws Exception {
    copyNotifications(seed, true);
  }

  /** Without {@code ANALYZE}: the planner already knows the backlog's shape from the seed. */
  @Override
  public void topUpNotifications(InboxSeed seed) throws Exception {
    copyNotifications(seed, false);
  }

  private void copyNotifications(InboxSeed seed, boolean analyze) throws Exception {
    int[] unread = seed.unreadPerAgent();
    StringBuilder rows = new StringBuilder();
    int pending = 0;
    try (Connection c = database.connect()) {
      CopyManager copy = c.unwrap(PGConnection.class).getCopyAPI();
      for (int agent = 0; agent < unread.length; agent++) {
        String id = AgentIds.id(agent);
        for (int n = 0; n < unread[agent]; n++) {
          rows.append(id).append('\n');
          if (++pending == COPY_CHUNK_ROWS) {
            copy.copyIn(
                "COPY notifications (recipient_id) FROM STDIN", new StringReader(rows.toString()));
            rows.setLength(0);
            pending = 0;
          }
        }
      }
      copy.copyIn(
          "COPY notifications (recipient_id) FROM STDIN", new StringReader(rows.toString()));
      if (analyze) {
        // Fresh statistics so the planner sees the backlog, as autovacuum would in steady state.
        analyze(c);
      }
    }
  }

  @Override
  public void startRunners(RunnerSpec spec, RunnerListener listener) {
    for (int i = 0; i < spec.runners(); i++) {
      SeedSqlRunner runner = new SeedSqlRunner(database, spec, listener, idlePollMillis, errors);
      Thread thread = new Thread(runner, "seed-sql-runner-" + i);
      thread.setDaemon(true);
      runners.add(runner);
      runnerThreads.add(thread);
      thread.start();
    }
  }

  @Override
  public void publish(String agentId, long token) throws SQLException {
    Connection c = publisherConnection.get();
    if (c == null) {
      c = database.connect();
      publisherConnection.set(c);
      publisherConnections.add(c);
    }
    try (PreparedStatement insert =
        c.prepareStatement("INSERT INTO notifications (recipient_id, token) VALUES (?, ?)")) {
      insert.setString(1, agentId);
      insert.setLong(2, token);
      insert.executeUpdate();
    }
  }

  @Override
  public long unread() throws SQLException {
    try (Connection c = database.connect();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT count(*) FROM notifications WHERE NOT read")) {
      rs.next();
      return rs.getLong(1);
    }
  }

  @Override
  public long errors() {
    return errors.get();
  }

  @Override
  public void stopRunners() throws InterruptedException {
    runners.forEach(SeedSqlRunner::stop);
    for (Thread thread : runnerThreads) {
      thread.join(30_000);
    }
    runners.clear();
    runnerThreads.clear();
  }

  @Override
  public void close() throws Exception {
    stopRunners();
    for (Connection c : publisherConnections) {
      c.close();
    }
    publisherConnections.clear();
  }

  private static void analyze(Connection c) throws SQLException {
    try (Statement s = c.createStatement()) {
      s.execute("ANALYZE agents");
      s.execute("ANALYZE notifications");
    }
  }

  private static String schema() throws IOException {
    try (InputStream in = SeedSqlSystem.class.getResourceAsStream("schema.sql")) {
      if (in == null) {
        throw new IOException("schema.sql missing from the classpath");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }
}
