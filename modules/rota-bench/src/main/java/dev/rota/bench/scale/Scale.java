package dev.rota.bench.scale;

import dev.rota.bench.report.Metric;
import dev.rota.bench.report.Metric.Better;
import dev.rota.bench.report.Status;
import dev.rota.bench.report.WorkloadResult;
import dev.rota.bench.system.AgentIds;
import dev.rota.bench.system.BenchDatabase;
import dev.rota.bench.workload.Trials;
import dev.rota.bench.workload.Workload;
import dev.rota.client.AgentSpec;
import dev.rota.client.RotaClient;
import dev.rota.core.model.RunnerMode;
import java.lang.management.ManagementFactory;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.HdrHistogram.ConcurrentHistogram;

/**
 * Scale: N agents on one node of Rota, in its own JVM on the run's PostgreSQL. Registers the agents
 * over HTTP ({@code PUT /v1/agents/{id}}, {@link ScaleSettings#concurrency()} in flight) and
 * reports the rate and latency; measures the node's live heap after a full GC when empty, right
 * after registering and once the agents have been idle past the passivation timeout; then restarts
 * the node and reports the time from process start to {@code /ready} 200 and to every coordinator
 * having loaded its partition from {@code agent_schedule}, and the heap after the restart.
 *
 * <p>Rota only: the other systems have no agents to keep in memory; they are reported n/a.
 */
public final class Scale implements Workload {

  public static final String NAME = "scale";

  private static final String NODE_OPTION = "rota.node.";
  private static final Duration START_TIMEOUT = Duration.ofMinutes(5);
  private static final Duration READ_MODEL_TIMEOUT = Duration.ofMinutes(30);
  private static final Duration AFTER_CATCH_UP = Duration.ofSeconds(12);
  private static final Duration STABLE = Duration.ofSeconds(3);

  /** Capability sets the agents cycle through: the index interns each set once. */
  private static final List<List<String>> CAPABILITIES =
      List.of(List.of(), List.of("code"), List.of("code", "web"), List.of("search"));

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public RunnerMode mode() {
    return RunnerMode.EXPLORATION;
  }

  @Override
  public WorkloadResult run(Trials trials) throws Exception {
    if (!trials.systemName().equals("rota")) {
      return WorkloadResult.notApplicable(
          NAME, "measures a Rota node's memory and restart; reported under rota");
    }
    ScaleSettings settings = trials.config().scale();
    String prefix = "  [" + trials.systemName() + "] " + NAME + " ";
    Map<String, String> nodeSettings = new LinkedHashMap<>();
    trials
        .config()
        .systemOptions()
        .forEach(
            (k, v) -> {
              if (k.startsWith(NODE_OPTION)) {
                nodeSettings.put(k.substring(NODE_OPTION.length()), v);
              }
            });
    nodeSettings.putAll(settings.nodeSettings());
    int partitions = Integer.parseInt(nodeSettings.getOrDefault("rota.partitions", "16"));
    if (settings.synthetic()) {
      return SyntheticRestart.run(trials, settings, nodeSettings, partitions, prefix);
    }
    Map<String, Object> details = new LinkedHashMap<>();
    details.put("agentsAsked", settings.agents());
    details.put("concurrency", settings.concurrency());
    details.put("nodeHeap", settings.nodeHeap());
    details.put("partitions", partitions);
    BenchDatabase database = trials.createDatabase(NAME);
    try (NodeJvm node =
        new NodeJvm(database, settings.nodeHeap(), nodeSettings, trials.config().resultsDir())) {
      node.start();
      double emptyReady = node.awaitReady(START_TIMEOUT);
      node.awaitCoordinators(partitions, START_TIMEOUT);
      long emptyHeap = node.liveHeapAfterFullGc();
      details.put("emptyNodeReadySeconds", round(emptyReady));
      details.put("emptyHeapMiB", mib(emptyHeap));
      trials
          .progress()
          .out()
          .printf(Locale.ROOT, "%sempty node ready in %.1f s%n", prefix, emptyReady);

      Duration cpuBefore = node.cpu();
      Registration registration = register(node, settings, trials, prefix);
      Duration registrationCpu = node.cpu().minus(cpuBefore);
      details.put("registrationSeconds", round(registration.seconds()));
      details.put("registrationCapped", registration.issued() < settings.agents());
      details.put("registrationFailures", registration.failures());
      details.put("firstFailure", registration.firstFailure());
      details.put("loadAverageAfterRegistration", loadAverage());
      long beforeReadModel = System.nanoTime();
      // A registration answered 503 (the ask timed out) may still have been persisted: count rows.
      long n = awaitReadModel(database, registration.issued() - registration.failures());
      details.put("agents", n);
      details.put(
          "nodeCpuMsPerRegistration",
          round(registrationCpu.toNanos() / 1e6 / Math.max(1, registration.succeeded())));
      details.put("readModelCatchUpSeconds", round((System.nanoTime() - beforeReadModel) / 1e9));

      long registeredHeap = node.liveHeapAfterFullGc();
      details.put("registeredHeapMiB", mib(registeredHeap));
      trials
          .progress()
          .out()
          .printf(
              Locale.ROOT,
              "%sregistered %d at %.0f/s (p99 %.1f ms); heap %d MiB; idle for %d s%n",
              prefix,
              n,
              registration.succeeded() / registration.seconds(),
              registration.millis(0.99),
              mib(registeredHeap),
              settings.idleWait().toSeconds());
      Duration cpuBeforeIdle = node.cpu();
      Thread.sleep(settings.idleWait().toMillis());
      // What N idle agents cost the node's CPU (the coordinators' periodic reconciliation reads
      // their whole partition from agent_schedule): share of one core.
      details.put(
          "nodeCpuPercentIdle",
          round(100.0 * node.cpu().minus(cpuBeforeIdle).toNanos() / settings.idleWait().toNanos()));
      long idleHeap = node.liveHeapAfterFullGc();
      details.put("idleHeapMiB", mib(idleHeap));
      details.put("loadAverageIdle", loadAverage());

      node.stop(Duration.ofSeconds(120));
      node.start();
      double ready = node.awaitReady(START_TIMEOUT);
      NodeJvm.CoordinatorsLoaded loaded = node.awaitCoordinators(partitions, START_TIMEOUT);
      details.put("loadAverageAtRestart", loadAverage());
      details.put("agentsLoadedByCoordinators", loaded.agents());
      details.put("nodeCpuSecondsToLoaded", round(node.cpu().toNanos() / 1e9));
      // Coordinators reload their partition 1, 3 and 10 s after taking it over (catching up with
      // pushes their predecessor got); a reload in flight holds a second copy of the rows.
      Thread.sleep(AFTER_CATCH_UP.toMillis());
      long restartedHeap = node.liveHeapAfterFullGc();
      details.put("restartedHeapMiB", mib(restartedHeap));
      details.put("nodeLog", node.log().toString());
      trials
          .progress()
          .out()
          .printf(
              Locale.ROOT,
              "%srestarted: ready in %.1f s, coordinators loaded %d agents in %.1f s%n",
              prefix,
              ready,
              loaded.agents(),
              loaded.seconds());

      String note =
          String.format(
              Locale.ROOT,
              "%,d agents over HTTP; idle heap %d MiB after %d s (empty node %d MiB)",
              n,
              mib(idleHeap),
              settings.idleWait().toSeconds(),
              mib(emptyHeap));
      if (registration.issued() < settings.agents()) {
        note +=
            String.format(
                Locale.ROOT,
                "; registering capped at %d min (%,d of %,d asked)",
                settings.registrationCap().toMinutes(),
                n,
                settings.agents());
      }
      if (registration.failures() > 0) {
        note += "; " + registration.failures() + " registrations failed";
      }
      if (loaded.agents() != n) {
        note += "; coordinators loaded " + loaded.agents() + " agents";
      }
      List<Metric> metrics = new ArrayList<>();
      metrics.add(
          Metric.of(
              "scale.registrationRate",
              "registrations/s (PUT)",
              registration.succeeded() / registration.seconds(),
              "/s",
              Better.HIGHER));
      metrics.add(
          Metric.of(
              "scale.registrationP50",
              "registration p50",
              registration.millis(0.5),
              "ms",
              Better.LOWER));
      metrics.add(
          Metric.of(
              "scale.registrationP99",
              "registration p99",
              registration.millis(0.99),
              "ms",
              Better.LOWER));
      metrics.add(
          Metric.of(
              "scale.heapPerAgentRegistered",
              "heap per agent just registered",
              registeredHeap / (double) n,
              "B",
              Better.LOWER));
      metrics.add(
          Metric.of(
              "scale.heapPerAgentIdle",
              "heap per agent, idle",
              idleHeap / (double) n,
              "B",
              Better.LOWER));
      metrics.add(
          Metric.of(
              "scale.heapPerAgentIdleAboveEmpty",
              "heap per agent, idle, above an empty node",
              (idleHeap - emptyHeap) / (double) n,
              "B",
              Better.LOWER));
      metrics.add(
          Metric.of(
              "scale.heapPerAgentRestarted",
              "heap per agent after restart",
              restartedHeap / (double) n,
              "B",
              Better.LOWER));
      metrics.add(Metric.of("scale.restartToReady", "restart to /ready", ready, "s", Better.LOWER));
      metrics.add(
          Metric.of(
              "scale.restartToLoaded",
              "restart to coordinators loaded",
              loaded.seconds(),
              "s",
              Better.LOWER));
      return new WorkloadResult(NAME, Status.OK, note, metrics, details);
    } finally {
      trials.dropDatabase(database);
    }
  }

  /** Agents 0..issued-1 were asked for, of which {@code failures} were refused or timed out. */
  private record Registration(
      double seconds, int issued, long failures, String firstFailure, ConcurrentHistogram micros) {
    long succeeded() {
      return issued - failures;
    }

    double millis(double quantile) {
      return micros.getValueAtPercentile(quantile * 100) / 1000.0;
    }
  }

  /** Agents 0..n-1, each by one of {@code concurrency} threads taking the next id. */
  private static Registration register(
      NodeJvm node, ScaleSettings settings, Trials trials, String prefix) throws Exception {
    int n = settings.agents();
    long deadline = System.nanoTime() + settings.registrationCap().toNanos();
    ConcurrentHistogram micros = new ConcurrentHistogram(3);
    AtomicInteger next = new AtomicInteger();
    AtomicLong failures = new AtomicLong();
    AtomicReference<String> firstFailure = new AtomicReference<>("");
    long start = System.nanoTime();
    try (RotaClient client = RotaClient.builder(node.apiBase()).retries(0).build()) {
      trials
          .progress()
          .start(
              prefix,
              () -> {
                double s = (System.nanoTime() - start) / 1e9;
                int done = Math.min(next.get(), n);
                return String.format(
                    Locale.ROOT,
                    "%5.0fs  registered %d of %d  %.0f/s  p99 %.1f ms",
                    s,
                    done,
                    n,
                    done / s,
                    micros.getValueAtPercentile(99) / 1000.0);
              });
      List<Thread> threads = new ArrayList<>();
      for (int t = 0; t < settings.concurrency(); t++) {
        Runnable worker =
            () -> {
              while (System.nanoTime() < deadline) {
                int i = next.getAndIncrement();
                if (i >= n) {
                  return;
                }
                AgentSpec spec =
                    AgentSpec.create().capabilities(CAPABILITIES.get(i % CAPABILITIES.size()));
                long t0 = System.nanoTime();
                try {
                  client.registerAgent(AgentIds.id(i), spec);
                  micros.recordValue((System.nanoTime() - t0) / 1000);
                } catch (RuntimeException e) {
                  failures.incrementAndGet();
                  firstFailure.compareAndSet("", e.toString());
                }
              }
            };
        Thread thread = new Thread(worker, "scale-register-" + t);
        thread.start();
        threads.add(thread);
      }
      for (Thread thread : threads) {
        thread.join();
      }
    } finally {
      trials.progress().stop();
    }
    double seconds = (System.nanoTime() - start) / 1e9;
    int issued = Math.min(next.get(), n);
    return new Registration(seconds, issued, failures.get(), firstFailure.get(), micros);
  }

  /**
   * Until the journal has written at least {@code n} agents' rows (what a restart loads) and the
   * count holds still; returns the count.
   */
  private static long awaitReadModel(BenchDatabase database, long n) throws Exception {
    long deadline = System.nanoTime() + READ_MODEL_TIMEOUT.toNanos();
    try (Connection c = database.connect();
        Statement s = c.createStatement()) {
      long previous = -1;
      long stableSince = System.nanoTime();
      while (true) {
        long rows;
        try (ResultSet rs = s.executeQuery("select count(*) from agent_schedule")) {
          rs.next();
          rows = rs.getLong(1);
        }
        // Registrations answered 503 may still land: wait until the count has held for a while.
        if (rows != previous) {
          previous = rows;
          stableSince = System.nanoTime();
        } else if (rows >= n && System.nanoTime() - stableSince > STABLE.toNanos()) {
          return rows;
        }
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("read model shows " + rows + " agents of " + n);
        }
        Thread.sleep(200);
      }
    }
  }

  private static long mib(long bytes) {
    return bytes / (1024 * 1024);
  }

  private static double round(double value) {
    return Math.round(value * 100) / 100.0;
  }

  private static double loadAverage() {
    return Math.round(ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage() * 100)
        / 100.0;
  }
}
