package dev.rota.bench.scale;

import dev.rota.bench.report.Metric;
import dev.rota.bench.report.Metric.Better;
import dev.rota.bench.report.Status;
import dev.rota.bench.report.WorkloadResult;
import dev.rota.bench.system.AgentIds;
import dev.rota.bench.system.BenchDatabase;
import dev.rota.bench.workload.Trials;
import dev.rota.core.model.Partitions;
import java.io.StringReader;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.postgresql.copy.CopyManager;
import org.postgresql.core.BaseConnection;

/**
 * {@code --scale-synthetic}: the restart half of {@link Scale} without registering. The node's
 * migrations create the schema, then N rows are copied into {@code agent_schedule} as the journal
 * would have written them for agents that were registered and never ran, and the node is started on
 * them: restart to {@code /ready} and to every coordinator loaded, the heap after, and the CPU an
 * idle node spends on them (two reconciliations). Coordinators load only that table, so this
 * measures their start-up at any N in a minute or two instead of the hour a million registrations
 * take on a shared machine; it says nothing about registration or entities.
 */
final class SyntheticRestart {

  private static final Duration START_TIMEOUT = Duration.ofMinutes(5);
  private static final Duration AFTER_CATCH_UP = Duration.ofSeconds(12);
  private static final Duration IDLE = Duration.ofSeconds(60);
  private static final int COPY_CHUNK = 100_000;

  /** As CSV fields: quoted where empty (an unquoted empty field is NULL) or holding a comma. */
  private static final List<String> CAPABILITIES =
      List.of("\"\"", "code", "\"code,web\"", "search");

  private SyntheticRestart() {}

  static WorkloadResult run(
      Trials trials,
      ScaleSettings settings,
      Map<String, String> nodeSettings,
      int partitions,
      String prefix)
      throws Exception {
    int n = settings.agents();
    Map<String, Object> details = new LinkedHashMap<>();
    details.put("synthetic", true);
    details.put("agents", n);
    details.put("nodeHeap", settings.nodeHeap());
    details.put("partitions", partitions);
    BenchDatabase database = trials.createDatabase(Scale.NAME + "_synthetic");
    try (NodeJvm node =
        new NodeJvm(database, settings.nodeHeap(), nodeSettings, trials.config().resultsDir())) {
      node.start();
      node.awaitReady(START_TIMEOUT);
      node.awaitCoordinators(partitions, START_TIMEOUT);
      long emptyHeap = node.liveHeapAfterFullGc();
      details.put("emptyHeapMiB", emptyHeap >> 20);
      node.stop(Duration.ofSeconds(120));

      long before = System.nanoTime();
      writeRows(database, n, partitions);
      details.put("rowsWrittenSeconds", round((System.nanoTime() - before) / 1e9));
      trials.progress().out().printf(Locale.ROOT, "%swrote %,d agent_schedule rows%n", prefix, n);

      details.put("loadAverageAtRestart", loadAverage());
      node.start();
      double ready = node.awaitReady(START_TIMEOUT);
      NodeJvm.CoordinatorsLoaded loaded = node.awaitCoordinators(partitions, START_TIMEOUT);
      details.put("nodeCpuSecondsToLoaded", round(node.cpu().toNanos() / 1e9));
      details.put("agentsLoadedByCoordinators", loaded.agents());
      Thread.sleep(AFTER_CATCH_UP.toMillis());
      Duration cpuBeforeIdle = node.cpu();
      Thread.sleep(IDLE.toMillis());
      details.put(
          "nodeCpuPercentIdle",
          round(100.0 * node.cpu().minus(cpuBeforeIdle).toNanos() / IDLE.toNanos()));
      long heap = node.liveHeapAfterFullGc();
      details.put("restartedHeapMiB", heap >> 20);
      details.put("loadAverageAfter", loadAverage());
      details.put("nodeLog", node.log().toString());
      trials
          .progress()
          .out()
          .printf(
              Locale.ROOT,
              "%sstarted on %,d agents: ready in %.1f s, coordinators loaded %d in %.1f s%n",
              prefix,
              n,
              ready,
              loaded.agents(),
              loaded.seconds());
      String note =
          String.format(
              Locale.ROOT,
              "synthetic: %,d agent_schedule rows written by SQL, no registration; heap %d MiB"
                  + " after restart (empty node %d MiB)",
              n,
              heap >> 20,
              emptyHeap >> 20);
      return new WorkloadResult(
          Scale.NAME,
          Status.OK,
          note,
          List.of(
              Metric.of(
                  "scale.heapPerAgentRestarted",
                  "heap per agent after restart",
                  heap / (double) n,
                  "B",
                  Better.LOWER),
              Metric.of("scale.restartToReady", "restart to /ready", ready, "s", Better.LOWER),
              Metric.of(
                  "scale.restartToLoaded",
                  "restart to coordinators loaded",
                  loaded.seconds(),
                  "s",
                  Better.LOWER)),
          details);
    } finally {
      trials.dropDatabase(database);
    }
  }

  /** Rows of agents 0..n-1 as the journal writes a registration: capabilities sorted. */
  private static void writeRows(BenchDatabase database, int n, int partitions) throws Exception {
    try (Connection c = database.connect()) {
      CopyManager copy = new CopyManager(c.unwrap(BaseConnection.class));
      StringBuilder rows = new StringBuilder();
      for (int i = 0; i < n; i++) {
        String id = AgentIds.id(i);
        rows.append(id)
            .append(',')
            .append(Partitions.of(id, partitions))
            .append(',')
            .append(CAPABILITIES.get(i % CAPABILITIES.size()))
            .append(",1,2026-01-01 00:00:00+00,2026-01-01 00:00:00+00\n");
        if ((i + 1) % COPY_CHUNK == 0 || i == n - 1) {
          copy.copyIn(
              "copy agent_schedule (agent_id, partition_id, capabilities, seq_nr, updated_at,"
                  + " registered_at) from stdin (format csv)",
              new StringReader(rows.toString()));
          rows.setLength(0);
        }
      }
      try (Statement s = c.createStatement()) {
        s.execute("analyze agent_schedule");
      }
    }
  }

  private static double round(double value) {
    return Math.round(value * 100) / 100.0;
  }

  private static double loadAverage() {
    return Math.round(
            java.lang.management.ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage()
                * 100)
        / 100.0;
  }
}
