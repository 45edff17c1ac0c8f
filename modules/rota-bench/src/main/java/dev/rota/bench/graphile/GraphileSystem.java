package dev.rota.bench.graphile;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.rota.bench.metrics.ProcessTreeCpu;
import dev.rota.bench.system.AgentIds;
import dev.rota.bench.system.BenchDatabase;
import dev.rota.bench.system.BenchSystem;
import dev.rota.bench.system.ClaimedActivation;
import dev.rota.bench.system.Completion;
import dev.rota.bench.system.InboxSeed;
import dev.rota.bench.system.RunnerListener;
import dev.rota.bench.system.RunnerSpec;
import dev.rota.bench.system.TrialShape;
import dev.rota.core.model.ActivationKind;
import dev.rota.core.model.RunnerMode;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
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
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * graphile-worker as a peer: one no-op job per notification, added with its SQL API ({@code
 * graphile_worker.add_jobs} in bulk for backlogs, {@code add_job} per publish), executed by a Node
 * process running {@code bench-worker.cjs}. Jobs have no agent, so only notification-mode workloads
 * map onto it; each job is one activation carrying one notification.
 *
 * <p>The Node process reports a claim when the task starts and a completion on {@code
 * job:complete}, which graphile emits when the completion is handed to its (possibly batched)
 * writer — slightly before it is durable; the harness confirms draining with {@link #unread()}.
 */
public final class GraphileSystem implements BenchSystem {

  private static final int ADD_JOBS_CHUNK = 10_000;
  private static final ObjectMapper JSON = new ObjectMapper();

  // json_populate_record keeps working if graphile adds fields to job_spec.
  private static final String ADD_JOBS =
      """
      SELECT count(*) FROM graphile_worker.add_jobs(
        (SELECT array_agg(json_populate_record(null::graphile_worker.job_spec,
                 json_build_object('identifier', 'noop', 'payload', json_build_object('a', a))))
         FROM unnest(?::text[]) AS a))
      """;

  private static final String ADD_JOB =
      "SELECT graphile_worker.add_job('noop', json_build_object('a', ?::text, 't', ?::bigint))";

  private final GraphileInstall install;
  private final GraphileSettings settings;
  private final Path log;
  private final PrintStream out;
  private final AtomicLong failedJobs = new AtomicLong();
  private final ConcurrentLinkedQueue<Connection> publisherConnections =
      new ConcurrentLinkedQueue<>();
  private final ThreadLocal<Connection> publisherConnection = new ThreadLocal<>();
  private final List<Thread> readers = new ArrayList<>();
  private BenchDatabase database;
  private Process worker;
  private double stoppedWorkersCpuMillis;

  public GraphileSystem(
      GraphileInstall install, GraphileSettings settings, Path log, PrintStream out) {
    this.install = install;
    this.settings = settings;
    this.log = log;
    this.out = out;
  }

  @Override
  public Set<RunnerMode> supportedModes() {
    return EnumSet.of(RunnerMode.NOTIFICATION);
  }

  @Override
  public void setUp(BenchDatabase database, TrialShape shape) throws Exception {
    this.database = database;
    Process migrate = node(List.of("migrate", database.postgresUrl())).start();
    migrate.getOutputStream().close();
    if (!migrate.waitFor(120, TimeUnit.SECONDS) || migrate.exitValue() != 0) {
      migrate.destroyForcibly();
      throw new IOException("graphile-worker migrations failed; see " + log);
    }
  }

  @Override
  public void seedAgents(int count) {
    // graphile-worker has no agents: a job names its agent in the payload.
  }

  @Override
  public void seedNotifications(InboxSeed seed) throws SQLException {
    addJobs(seed, true);
  }

  /** Without {@code ANALYZE}: a top-up must be quicker than the workers draining the queue. */
  @Override
  public void topUpNotifications(InboxSeed seed) throws SQLException {
    addJobs(seed, false);
  }

  private void addJobs(InboxSeed seed, boolean analyze) throws SQLException {
    int[] unread = seed.unreadPerAgent();
    List<String> chunk = new ArrayList<>(ADD_JOBS_CHUNK);
    try (Connection c = database.connect()) {
      for (int agent = 0; agent < unread.length; agent++) {
        String id = AgentIds.id(agent);
        for (int n = 0; n < unread[agent]; n++) {
          chunk.add(id);
          if (chunk.size() == ADD_JOBS_CHUNK) {
            addJobs(c, chunk);
          }
        }
      }
      addJobs(c, chunk);
      if (analyze) {
        try (Statement s = c.createStatement()) {
          s.execute("ANALYZE graphile_worker._private_jobs");
        }
      }
    }
  }

  private static void addJobs(Connection c, List<String> agentIds) throws SQLException {
    if (agentIds.isEmpty()) {
      return;
    }
    try (PreparedStatement add = c.prepareStatement(ADD_JOBS)) {
      add.setArray(1, c.createArrayOf("text", agentIds.toArray()));
      add.executeQuery().close();
    }
    agentIds.clear();
  }

  @Override
  public void startRunners(RunnerSpec spec, RunnerListener listener) throws Exception {
    if (spec.mode() != RunnerMode.NOTIFICATION) {
      throw new UnsupportedOperationException("graphile-worker has no " + spec.mode() + " mode");
    }
    String presetJson = JSON.writeValueAsString(settings.workerPreset());
    worker =
        node(List.of(
                "work",
                database.postgresUrl(),
                presetJson,
                Long.toString(spec.activationTime().toMillis())))
            .redirectOutput(ProcessBuilder.Redirect.PIPE)
            .start();
    CountDownLatch ready = new CountDownLatch(1);
    Thread reader =
        new Thread(() -> readEvents(listener, ready), "graphile-events-" + settings.systemName());
    reader.setDaemon(true);
    reader.start();
    readers.add(reader);
    if (!ready.await(60, TimeUnit.SECONDS)) {
      throw new IOException("graphile-worker did not start within 60 s; see " + log);
    }
  }

  private void readEvents(RunnerListener listener, CountDownLatch ready) {
    try (BufferedReader lines =
        new BufferedReader(
            new InputStreamReader(worker.getInputStream(), StandardCharsets.UTF_8))) {
      String line;
      while ((line = lines.readLine()) != null) {
        if (line.startsWith("S ")) {
          String[] f = line.split(" ");
          long token = Long.parseLong(f[1]);
          long[] tokens = token > 0 ? new long[] {token} : ClaimedActivation.NO_TOKENS;
          listener.onClaim(
              new ClaimedActivation(f[2], ActivationKind.INBOX, 1, tokens, Long.parseLong(f[3])));
        } else if (line.startsWith("C ")) {
          String[] f = line.split(" ");
          listener.onComplete(new Completion(f[1], ActivationKind.INBOX, 1, Long.parseLong(f[2])));
        } else if (line.equals("READY")) {
          ready.countDown();
        } else if (line.startsWith("E ")) {
          if (failedJobs.incrementAndGet() <= 3) {
            out.println("  " + settings.systemName() + ": " + line.substring(2));
          }
        }
      }
    } catch (IOException | RuntimeException e) {
      out.println("  " + settings.systemName() + ": lost the worker's output: " + e);
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
    try (PreparedStatement add = c.prepareStatement(ADD_JOB)) {
      add.setString(1, agentId);
      add.setLong(2, token);
      add.executeQuery().close();
    }
  }

  @Override
  public long unread() throws SQLException {
    try (Connection c = database.connect();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT count(*) FROM graphile_worker._private_jobs")) {
      rs.next();
      return rs.getLong(1);
    }
  }

  /** Jobs whose no-op task failed. */
  @Override
  public long errors() {
    return failedJobs.get();
  }

  /**
   * The Node worker's CPU time and its descendants' ({@link ProcessTreeCpu}), those of workers
   * already stopped included (up to the moment they were told to stop).
   */
  @Override
  public double workerCpuMillis() {
    if (!ProcessTreeCpu.available()) {
      return Double.NaN;
    }
    Process running = worker;
    return stoppedWorkersCpuMillis + (running == null ? 0 : runningWorkerCpuMillis(running));
  }

  private static double runningWorkerCpuMillis(Process running) {
    double cpu = ProcessTreeCpu.cpuMillis(running.pid());
    return Double.isNaN(cpu) ? 0 : cpu;
  }

  @Override
  public void stopRunners() throws Exception {
    if (worker == null) {
      return;
    }
    stoppedWorkersCpuMillis += runningWorkerCpuMillis(worker);
    worker.getOutputStream().close();
    if (!worker.waitFor(30, TimeUnit.SECONDS)) {
      out.println("  " + settings.systemName() + ": worker did not stop in 30 s; killing it");
      worker.destroyForcibly();
      worker.waitFor(10, TimeUnit.SECONDS);
    }
    for (Thread reader : readers) {
      reader.join(5_000);
    }
    readers.clear();
    worker = null;
  }

  @Override
  public void close() throws Exception {
    try {
      stopRunners();
    } finally {
      for (Connection c : publisherConnections) {
        c.close();
      }
      publisherConnections.clear();
    }
  }

  /** A node process in the install folder, stderr appended to the system's log. */
  private ProcessBuilder node(List<String> args) throws IOException {
    Files.createDirectories(log.getParent());
    if (!Files.exists(log)) {
      try (Writer ignored =
          Files.newBufferedWriter(log, StandardOpenOption.CREATE, StandardOpenOption.APPEND)) {
        // create the file so the redirect can append
      }
    }
    List<String> command = new ArrayList<>();
    command.add(install.node());
    command.add(GraphileInstall.SCRIPT);
    command.addAll(args);
    return new ProcessBuilder(command)
        .directory(install.folder().toFile())
        .redirectError(ProcessBuilder.Redirect.appendTo(log.toFile()))
        .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
  }
}
