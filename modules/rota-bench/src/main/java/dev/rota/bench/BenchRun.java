package dev.rota.bench;

import dev.rota.bench.budget.Budget;
import dev.rota.bench.budget.BudgetTable;
import dev.rota.bench.budget.StageRules;
import dev.rota.bench.metrics.Progress;
import dev.rota.bench.postgres.BenchPostgres;
import dev.rota.bench.report.BenchResults;
import dev.rota.bench.report.ChartReport;
import dev.rota.bench.report.JsonReport;
import dev.rota.bench.report.Status;
import dev.rota.bench.report.SystemResult;
import dev.rota.bench.report.TextReports;
import dev.rota.bench.report.WorkloadResult;
import dev.rota.bench.scale.Scale;
import dev.rota.bench.system.Availability;
import dev.rota.bench.system.BenchEnvironment;
import dev.rota.bench.system.BenchSystem;
import dev.rota.bench.system.BenchSystemProvider;
import dev.rota.bench.system.SystemCatalog;
import dev.rota.bench.workload.BacklogScaling;
import dev.rota.bench.workload.BurnDown;
import dev.rota.bench.workload.Fairness;
import dev.rota.bench.workload.Trials;
import dev.rota.bench.workload.Trickle;
import dev.rota.bench.workload.Workload;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * One bench run: starts PostgreSQL, runs every selected workload on every selected system one after
 * another, and writes results.json, results.md and results.png. A system that cannot run is
 * reported as skipped with its reason, a workload that throws as FAILED — nothing is dropped
 * silently.
 */
public final class BenchRun {

  private final BenchConfig config;
  private final PrintStream out;

  public BenchRun(BenchConfig config, PrintStream out) {
    this.config = config;
    this.out = out;
  }

  public BenchResults run() throws Exception {
    Instant started = Instant.now();
    long startNanos = System.nanoTime();
    Files.createDirectories(config.resultsDir());
    List<BenchSystemProvider> providers = new ArrayList<>();
    for (String name : config.systems()) {
      providers.add(SystemCatalog.provider(name));
    }
    List<Workload> workloads = workloads();
    out.println("rota-bench: systems " + config.systems() + ", workloads " + config.workloads());
    out.println("results in " + config.resultsDir().toAbsolutePath());

    List<SystemResult> systems = new ArrayList<>();
    Map<String, Object> environment = new LinkedHashMap<>();
    BenchEnvironment benchEnvironment =
        new BenchEnvironment(config.workDir(), config.resultsDir(), out, config.systemOptions());
    out.println("starting PostgreSQL ...");
    try (BenchPostgres postgres = BenchPostgres.start(config.postgresSettings());
        Progress progress = new Progress(out, config.progressInterval())) {
      environment.put("postgres", postgres.version());
      environment.put(
          "postgresSettings",
          Map.of(
              "fsync", postgres.show("fsync"),
              "synchronous_commit", postgres.show("synchronous_commit"),
              "shared_buffers", postgres.show("shared_buffers")));
      environment.put("java", System.getProperty("java.version"));
      environment.put("cpus", Runtime.getRuntime().availableProcessors());
      environment.put("os", System.getProperty("os.name") + " " + System.getProperty("os.arch"));
      out.println("PostgreSQL " + postgres.version() + " " + environment.get("postgresSettings"));
      environment.put("loadAverageAtStart", loadAverage());
      if (loadAverage() > Runtime.getRuntime().availableProcessors()) {
        out.printf(
            Locale.ROOT,
            "note: load average %.1f on %d cores before starting — figures will be noisy%n",
            loadAverage(),
            Runtime.getRuntime().availableProcessors());
      }
      for (BenchSystemProvider provider : providers) {
        systems.add(runSystem(provider, workloads, postgres, benchEnvironment, progress));
      }
    }
    environment.put("loadAverageAtEnd", loadAverage());
    BenchResults results =
        new BenchResults(
            started.toString(),
            (System.nanoTime() - startNanos) / 1e9,
            environment,
            config.describe(),
            systems);
    JsonReport.write(results, config.resultsDir().resolve("results.json"));
    Files.writeString(config.resultsDir().resolve("results.md"), TextReports.markdown(results));
    ChartReport.write(results, config.resultsDir().resolve("results.png"));
    out.println();
    out.print(TextReports.console(results));
    if (config.budget()) {
      String budget = budgetReport(results, systems);
      Files.writeString(config.resultsDir().resolve("budget.md"), budget);
      out.println();
      out.println("== budget ==");
      out.print(budget);
    }
    out.printf(
        Locale.ROOT,
        "%nwrote results.json, results.md, results.png to %s (%.0f s)%n",
        config.resultsDir().toAbsolutePath(),
        results.durationSeconds());
    return results;
  }

  private SystemResult runSystem(
      BenchSystemProvider provider,
      List<Workload> workloads,
      BenchPostgres postgres,
      BenchEnvironment environment,
      Progress progress) {
    out.println();
    out.println("== " + provider.name() + " ==");
    Availability availability = provider.prepare(environment);
    if (!availability.available()) {
      out.println("SKIPPED " + provider.name() + ": " + availability.reason());
      return new SystemResult(
          provider.name(),
          provider.description(),
          Status.SKIPPED,
          availability.reason(),
          List.of());
    }
    out.println(provider.description());
    Trials trials = new Trials(postgres, provider, environment, config, progress);
    List<WorkloadResult> results = new ArrayList<>();
    for (Workload workload : workloads) {
      results.add(runWorkload(trials, workload));
    }
    return new SystemResult(provider.name(), provider.description(), Status.OK, "", results);
  }

  private WorkloadResult runWorkload(Trials trials, Workload workload) {
    try (BenchSystem probe = trials.probe()) {
      if (!probe.supportedModes().contains(workload.mode())) {
        String why =
            "needs " + workload.mode().wireName() + " runners, which this system does not have";
        out.println("  [" + trials.systemName() + "] " + workload.name() + ": n/a — " + why);
        return WorkloadResult.notApplicable(workload.name(), why);
      }
    } catch (Exception e) {
      return WorkloadResult.failed(workload.name(), "could not create the system: " + e);
    }
    long start = System.nanoTime();
    try {
      WorkloadResult result = workload.run(trials);
      out.printf(
          Locale.ROOT,
          "  [%s] %s done in %.0f s%n",
          trials.systemName(),
          workload.name(),
          (System.nanoTime() - start) / 1e9);
      List<Map<String, Object>> internals = trials.takeInternals();
      if (internals.isEmpty()) {
        return result;
      }
      out.println(
          "  [" + trials.systemName() + "] " + workload.name() + " internals: " + internals);
      Map<String, Object> details = new LinkedHashMap<>(result.details());
      details.put("internals", internals);
      return new WorkloadResult(
          result.workload(), result.status(), result.note(), result.metrics(), details);
    } catch (Exception | AssertionError e) {
      StringWriter trace = new StringWriter();
      e.printStackTrace(new PrintWriter(trace));
      out.println("  [" + trials.systemName() + "] " + workload.name() + " FAILED: " + e);
      out.println(trace);
      return WorkloadResult.failed(workload.name(), e.toString());
    }
  }

  /** The budget tables of every level that measured one ({@code --budget}), with the machine. */
  private static String budgetReport(BenchResults results, List<SystemResult> systems) {
    List<Budget> budgets = new ArrayList<>();
    for (SystemResult system : systems) {
      for (WorkloadResult workload : system.workloads()) {
        for (Object level : workload.details().values()) {
          if (level instanceof Map<?, ?> details && details.get("budget") instanceof Budget b) {
            budgets.add(b);
          }
        }
      }
    }
    Map<String, Object> environment = results.environment();
    return String.format(
            Locale.ROOT,
            "Measured %s: Java %s, PostgreSQL %s, %s cores, load average %s at the start and %s at"
                + " the end.%n%n",
            results.startedAt(),
            environment.get("java"),
            environment.get("postgres"),
            environment.get("cpus"),
            environment.get("loadAverageAtStart"),
            environment.get("loadAverageAtEnd"))
        + BudgetTable.markdown(budgets, StageRules.standard());
  }

  /** One-minute load average; other processes on the machine skew every figure. */
  private static double loadAverage() {
    double load = ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
    return Math.round(load * 100) / 100.0;
  }

  private List<Workload> workloads() {
    List<Workload> all =
        List.of(new BurnDown(), new BacklogScaling(), new Trickle(), new Fairness(), new Scale());
    List<Workload> selected = new ArrayList<>();
    for (String name : config.workloads()) {
      all.stream().filter(w -> w.name().equals(name)).forEach(selected::add);
    }
    return selected;
  }
}
