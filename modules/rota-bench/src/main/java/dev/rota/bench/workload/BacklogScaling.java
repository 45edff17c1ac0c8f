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
 * level. A level is measured for a short window or until half of it is read (half of the inbox
 * agents served), so the backlog stays near its nominal size while measured.
 */
public final class BacklogScaling implements Workload {

  public static final String NAME = "backlog";

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
        if (cpuMeasured && !Double.isNaN(measured.cpuPerActivation)) {
          metrics.add(
              Metric.of(
                  key + "." + level + ".cpu",
                  compact(level) + " unread" + at + ": JVM CPU per activation",
                  measured.cpuPerActivation,
                  "ms",
                  Better.LOWER));
        }
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

  private record Level(
      double activationsPerSecond,
      double cpuPerActivation,
      String note,
      Map<String, Object> details) {}

  private Level measure(Trials trials, long level, int runners) throws Exception {
    BenchConfig config = trials.config();
    int spread = (int) Math.min(level, config.hotAgents());
    InboxSeed seed = InboxSeed.skewed(level, spread, 0.0);
    RunnerSpec spec = new RunnerSpec(runners, mode(), Duration.ZERO);
    String label = NAME + "-" + level + "-r" + runners;
    String prefix =
        "  [" + trials.systemName() + "] " + NAME + " " + compact(level) + " R=" + runners + " ";
    try (Trials.Trial trial = trials.open(new TrialShape(label, config.agents(), level, spec))) {
      BenchSystem system = trial.system();
      system.seedAgents(config.agents());
      system.seedNotifications(seed);
      Recorder recorder = new Recorder();
      system.startRunners(spec, recorder);
      long start = Measurement.firstClaim(recorder, Duration.ofSeconds(60));
      CpuMeter cpu = CpuMeter.start();
      long windowEnd = start + config.backlogWindow().toNanos() / 1000;
      long half = (level + 1) / 2;
      trials.progress().start(prefix, () -> status(recorder, start, level));
      boolean halfRead;
      try {
        halfRead = Measurement.until(() -> recorder.notifications() >= half, windowEnd);
      } finally {
        trials.progress().stop();
      }
      long end = BenchClock.nowMicros();
      long activations = recorder.activations();
      long notifications = recorder.notifications();
      double cpuMillis = cpu.elapsedMillis();
      system.stopRunners();
      double seconds = Measurement.seconds(start, end);
      double rate = activations / seconds;
      double cpuPerActivation = activations > 0 ? cpuMillis / activations : Double.NaN;
      trials
          .progress()
          .out()
          .printf(
              Locale.ROOT,
              "%s%.0f act/s over %.1f s, %.3f JVM CPU-ms/activation%n",
              prefix,
              rate,
              seconds,
              cpuPerActivation);
      Map<String, Object> details = new LinkedHashMap<>();
      details.put("agentsWithInbox", spread);
      details.put("measuredSeconds", seconds);
      details.put("activations", activations);
      details.put("notificationsRead", notifications);
      details.put("notificationsPerSecond", notifications / seconds);
      details.put("errors", system.errors());
      details.put("jvmCpuMillis", cpuMillis);
      details.put("runners", runners);
      String note =
          String.format(
              Locale.ROOT,
              "%s after %.1f s (%s read)",
              halfRead ? "half read" : "window ended",
              seconds,
              Measurement.percent(notifications, level));
      return new Level(rate, cpuPerActivation, note, details);
    }
  }

  private static String status(Recorder recorder, long start, long level) {
    double seconds = Measurement.seconds(start, BenchClock.nowMicros());
    return String.format(
        Locale.ROOT,
        "%5.1fs  read %d/%d  %d activations  %.0f act/s",
        seconds,
        recorder.notifications(),
        level,
        recorder.activations(),
        recorder.activations() / seconds);
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
