package dev.rota.bench.workload;

import dev.rota.bench.BenchConfig;
import dev.rota.bench.metrics.CpuMeter;
import dev.rota.bench.metrics.Recorder;
import dev.rota.bench.report.Metric;
import dev.rota.bench.report.Metric.Better;
import dev.rota.bench.report.Status;
import dev.rota.bench.report.WorkloadResult;
import dev.rota.bench.system.BenchClock;
import dev.rota.bench.system.BenchSystem;
import dev.rota.bench.system.InboxSeed;
import dev.rota.bench.system.RunnerSpec;
import dev.rota.bench.system.TrialShape;
import dev.rota.core.model.RunnerMode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Backlog scaling: activations/s with 2k, 20k, 200k unread (by default) — a flat line is the goal.
 * Each level is a fresh trial with the backlog spread evenly over the same {@code min(level,
 * hotAgents)} agents as burn-down's, so only the number of unread notifications grows from level to
 * level.
 *
 * <p>A level runs until it is steady ({@link SteadyWindow}): a warm-up that is not counted, then at
 * least the backlog window and at least the minimum activations, whichever comes later, within a
 * cap. Whenever half of the backlog has been read, the runners keep working while the bench gives
 * every agent back what it read ({@link ReadBack}, {@link BenchSystem#topUpNotifications}); that
 * top-up is not counted either. A counted part starts after a top-up and ends once half of the
 * level has been read since, so it never runs with less than half of the level unread, and its CPU
 * per activation holds none of the top-up's writes (the read model's catch-up on them aside).
 */
public final class BacklogScaling implements Workload {

  public static final String NAME = "backlog";

  /**
   * How often a level looks whether half of it has been read: a fast queue (tuned graphile-worker
   * reads 20,000 jobs/s) must not run dry between two looks at the smallest level.
   */
  private static final long TOP_UP_TICK_MILLIS = 5;

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public RunnerMode mode() {
    return RunnerMode.NOTIFICATION;
  }

  @Override
  public WorkloadResult run(Trials trials) throws Exception {
    BenchConfig config = trials.config();
    List<Metric> metrics = new ArrayList<>();
    Map<String, Object> details = new LinkedHashMap<>();
    List<String> notes = new ArrayList<>();
    boolean cpuMeasured = CpuMeter.measures(trials.systemName());
    for (int runners : config.backlogRunners()) {
      // The rows at the run's own R keep their plain names; other R are named by their R.
      String key = runners == config.runners() ? NAME : NAME + ".r" + runners;
      String at = runners == config.runners() ? "" : ", R = " + runners;
      double firstRate = Double.NaN;
      double lastRate = Double.NaN;
      for (long level : config.backlogLevels()) {
        Level measured = measure(trials, level, runners);
        metrics.add(
            Metric.of(
                    key + "." + level,
                    compact(level) + " unread" + at + ": activations/s",
                    measured.activationsPerSecond,
                    "/s",
                    Better.HIGHER)
                .charted("scaling")
                .at(level));
        String row = key + "." + level;
        String label = compact(level) + " unread" + at + ": ";
        if (cpuMeasured) {
          addCpu(metrics, row + ".cpu", label + "JVM CPU per activation", measured.jvmCpu);
        }
        addCpu(
            metrics,
            row + ".runner-cpu",
            label + "runners' JVM CPU per activation",
            measured.runnerCpu);
        addCpu(
            metrics, row + ".worker-cpu", label + "worker CPU per activation", measured.workerCpu);
        addCpu(
            metrics,
            row + ".postgres-cpu",
            label + "PostgreSQL CPU per activation",
            measured.postgresCpu);
        addCpu(
            metrics,
            row + ".total-cpu",
            label + "total CPU per activation",
            measured.totalCpu(cpuMeasured));
        details.put("r" + runners + ".level" + level, measured.details);
        notes.add(compact(level) + at + ": " + measured.note);
        firstRate = Double.isNaN(firstRate) ? measured.activationsPerSecond : firstRate;
        lastRate = measured.activationsPerSecond;
      }
      if (config.backlogLevels().size() > 1 && firstRate > 0) {
        metrics.add(
            Metric.of(
                key + ".flatness",
                "largest ÷ smallest backlog rate" + at,
                lastRate / firstRate,
                "",
                Better.HIGHER));
      }
    }
    return new WorkloadResult(NAME, Status.OK, String.join("; ", notes), metrics, details);
  }

  /** A CPU-ms-per-activation row, left out where the figure is NaN (not measured here). */
  private static void addCpu(List<Metric> metrics, String key, String label, double value) {
    if (!Double.isNaN(value)) {
      metrics.add(Metric.of(key, label, value, "ms", Better.LOWER));
    }
  }

  /** A level's rate and its CPU milliseconds per activation, NaN where not measured. */
  private record Level(
      double activationsPerSecond,
      double jvmCpu,
      double runnerCpu,
      double workerCpu,
      double postgresCpu,
      String note,
      Map<String, Object> details) {

    /**
     * What the whole machine spent per activation: the bench's JVM where the system runs in it, the
     * runners' JVM, the worker, and PostgreSQL. NaN unless every part the system has was measured:
     * PostgreSQL always, the JVM where the system runs in it, otherwise a worker.
     */
    double totalCpu(boolean inBenchJvm) {
      if (Double.isNaN(postgresCpu)
          || (inBenchJvm ? Double.isNaN(jvmCpu) : Double.isNaN(workerCpu))) {
        return Double.NaN;
      }
      return postgresCpu
          + (inBenchJvm ? jvmCpu : 0)
          + (Double.isNaN(runnerCpu) ? 0 : runnerCpu)
          + (Double.isNaN(workerCpu) ? 0 : workerCpu);
    }
  }

  private Level measure(Trials trials, long level, int runners) throws Exception {
    BenchConfig config = trials.config();
    int spread = (int) Math.min(level, config.hotAgents());
    InboxSeed seed = InboxSeed.skewed(level, spread, 0.0);
    RunnerSpec spec = new RunnerSpec(runners, mode(), Duration.ZERO);
    String label = NAME + "-" + level + "-r" + runners;
    String prefix =
        "  [" + trials.systemName() + "] " + NAME + " " + compact(level) + " R=" + runners + " ";
    try (Trials.Trial trial = trials.open(new TrialShape(label, config.agents(), level, spec));
        BudgetLevel budget = BudgetLevel.open(trials, trial, label)) {
      BenchSystem system = trial.system();
      system.seedAgents(config.agents());
      system.seedNotifications(seed);
      budget.start();
      Recorder recorder = new Recorder();
      ReadBack readBack = new ReadBack(recorder, config.agents());
      system.startRunners(spec, readBack);
      long first = Measurement.firstClaim(recorder, Duration.ofSeconds(60));
      SteadyWindow window = new SteadyWindow(goal(config), first);
      long half = (level + 1) / 2;
      int topUps = 0;
      long toppedUp = 0;
      double topUpSeconds = 0;
      boolean capped = false;
      SteadyWindow.Mark afterWarmup = null;
      SteadyWindow.Mark last = null;
      trials.progress().start(prefix, () -> status(recorder, window, level));
      try {
        while (true) {
          SteadyWindow.Mark from = mark(trials, system, recorder, budget);
          boolean warming = window.warming(from.atMicros());
          if (!warming && afterWarmup == null) {
            afterWarmup = from;
          }
          Measurement.until(
              () ->
                  readBack.outstanding() >= half
                      || window.reached(from, BenchClock.nowMicros(), recorder.activations()),
              warming ? window.warmupEndMicros() : window.capMicros(),
              TOP_UP_TICK_MILLIS);
          SteadyWindow.Mark to = mark(trials, system, recorder, budget);
          last = to;
          window.add(from, to);
          if (!window.warming(to.atMicros()) && window.reached()) {
            break;
          }
          if (to.atMicros() >= window.capMicros()) {
            capped = true;
            break;
          }
          if (readBack.outstanding() >= half) {
            long topUpStart = System.nanoTime();
            InboxSeed readSoFar = readBack.drain();
            system.topUpNotifications(readSoFar);
            topUpSeconds += (System.nanoTime() - topUpStart) / 1e9;
            toppedUp += readSoFar.total();
            topUps++;
          }
        }
      } finally {
        trials.progress().stop();
      }
      // Before stopping: a stopping runner hands back what it was granted meanwhile, which Rota
      // counts as a failed activation although nothing went wrong.
      long errors = system.errors();
      system.stopRunners();
      budget.end();
      // Runners that read faster than the bench refills (Rota at 200k: an activation takes up to
      // 100 notifications, the refill goes through the agents) leave no part between top-ups: the
      // level then counts everything after the warm-up, top-ups and their CPU included.
      boolean withTopUps = capped && !window.reached() && afterWarmup != null && last != null;
      SteadyWindow counted = window;
      if (withTopUps) {
        counted = new SteadyWindow(goal(config), afterWarmup.atMicros());
        counted.addAll(afterWarmup, last);
      }
      double seconds = Math.max(1e-6, counted.seconds());
      long activations = counted.activations();
      double rate = activations / seconds;
      double cpuPerActivation = perActivation(counted.cpuMillis(), activations);
      double runnerCpuPerActivation = perActivation(counted.runnerCpuMillis(), activations);
      double workerCpuPerActivation = perActivation(counted.workerCpuMillis(), activations);
      double postgresCpuPerActivation = perActivation(counted.postgresCpuMillis(), activations);
      Level figures =
          new Level(
              rate,
              cpuPerActivation,
              runnerCpuPerActivation,
              workerCpuPerActivation,
              postgresCpuPerActivation,
              "",
              Map.of());
      double totalCpuPerActivation = figures.totalCpu(CpuMeter.measures(trials.systemName()));
      trials
          .progress()
          .out()
          .printf(
              Locale.ROOT,
              "%s%.0f act/s over %.1f s steady, CPU-ms/activation: JVM %.3f%s%s%s%s%n",
              prefix,
              rate,
              seconds,
              cpuPerActivation,
              part(", runners' JVM %.3f", runnerCpuPerActivation),
              part(", worker %.3f", workerCpuPerActivation),
              part(", PostgreSQL %.3f", postgresCpuPerActivation),
              part(", total %.3f", totalCpuPerActivation));
      Map<String, Object> details = new LinkedHashMap<>();
      budget
          .finish(trials.systemName(), level, runners, counted, recorder.activations(), toppedUp)
          .ifPresent(b -> details.put("budget", b));
      details.put("agentsWithInbox", spread);
      details.put("warmupSeconds", goal(config).warmup().toSeconds());
      details.put("measuredSeconds", seconds);
      details.put("measuredSegments", counted.segments());
      details.put("topUpsCounted", withTopUps);
      details.put("activations", activations);
      details.put("notificationsRead", counted.notifications());
      details.put("notificationsPerSecond", window.notifications() / seconds);
      details.put("topUps", topUps);
      details.put("toppedUpNotifications", toppedUp);
      details.put("topUpSeconds", topUpSeconds);
      details.put("capped", capped);
      details.put("allActivations", recorder.activations());
      details.put("errors", errors);
      details.put("jvmCpuMillis", counted.cpuMillis());
      if (!Double.isNaN(counted.runnerCpuMillis())) {
        details.put("runnerJvmCpuMillis", counted.runnerCpuMillis());
      }
      if (!Double.isNaN(counted.workerCpuMillis())) {
        details.put("workerCpuMillis", counted.workerCpuMillis());
      }
      if (!Double.isNaN(counted.postgresCpuMillis())) {
        details.put("postgresCpuMillis", counted.postgresCpuMillis());
      }
      details.put("runners", runners);
      String note =
          String.format(
                  Locale.ROOT,
                  "%s %.1f s %s, %d activations after a %d s warm-up, %d top-ups",
                  capped ? "capped at" : "",
                  seconds,
                  withTopUps ? "with top-ups counted (read faster than refilled)" : "steady",
                  activations,
                  goal(config).warmup().toSeconds(),
                  topUps)
              .strip();
      return new Level(
          rate,
          cpuPerActivation,
          runnerCpuPerActivation,
          workerCpuPerActivation,
          postgresCpuPerActivation,
          note,
          details);
    }
  }

  private static SteadyWindow.Goal goal(BenchConfig config) {
    return new SteadyWindow.Goal(
        config.backlogWarmup(),
        config.backlogWindow(),
        config.backlogActivations(),
        config.backlogCap());
  }

  private static SteadyWindow.Mark mark(
      Trials trials, BenchSystem system, Recorder recorder, BudgetLevel budget) {
    return new SteadyWindow.Mark(
        BenchClock.nowMicros(),
        recorder.activations(),
        recorder.notifications(),
        CpuMeter.processCpuMillis(),
        system.runnerCpuMillis(),
        system.workerCpuMillis(),
        trials.postgresCpuMillis(),
        budget.read());
  }

  private static double perActivation(double cpuMillis, long activations) {
    return activations > 0 ? cpuMillis / activations : Double.NaN;
  }

  private static String part(String format, double value) {
    return Double.isNaN(value) ? "" : String.format(Locale.ROOT, format, value);
  }

  private static String status(Recorder recorder, SteadyWindow window, long level) {
    long now = BenchClock.nowMicros();
    return String.format(
        Locale.ROOT,
        "%s  %d activations  %.1f s steady  %d read of %d",
        window.warming(now) ? "warm-up" : "steady ",
        recorder.activations(),
        window.seconds(),
        recorder.notifications(),
        level);
  }

  static String compact(long n) {
    if (n >= 1_000_000 && n % 1_000_000 == 0) {
      return n / 1_000_000 + "M";
    }
    if (n >= 1_000 && n % 1_000 == 0) {
      return n / 1_000 + "k";
    }
    return Long.toString(n);
  }
}
