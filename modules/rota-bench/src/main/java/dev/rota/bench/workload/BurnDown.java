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
 * Burn-down: a skewed backlog, notification runners, activations/s and notifications/s until the
 * backlog is drained — or until the time cap, in which case the rate is over the capped window and
 * the note says how much was left.
 */
public final class BurnDown implements Workload {

  public static final String NAME = "burn-down";

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
    InboxSeed seed = InboxSeed.skewed(config.notifications(), config.hotAgents(), config.skew());
    long total = seed.total();
    RunnerSpec spec = new RunnerSpec(config.runners(), mode(), Duration.ZERO);
    String prefix = "  [" + trials.systemName() + "] " + NAME + " ";
    try (Trials.Trial trial = trials.open(new TrialShape(NAME, config.agents(), total, spec))) {
      BenchSystem system = trial.system();
      long seedStart = System.nanoTime();
      system.seedAgents(config.agents());
      system.seedNotifications(seed);
      double seedSeconds = (System.nanoTime() - seedStart) / 1e9;
      trials
          .progress()
          .out()
          .printf(
              Locale.ROOT,
              "%sseeded %d agents, %d notifications in %.1f s%n",
              prefix,
              config.agents(),
              total,
              seedSeconds);

      Recorder recorder = new Recorder();
      system.startRunners(spec, recorder);
      long start = Measurement.firstClaim(recorder, Duration.ofSeconds(60));
      CpuMeter cpu = CpuMeter.start();
      long windowEnd = start + config.burnDownCap().toNanos() / 1000;
      trials.progress().start(prefix, () -> status(recorder, total, start));
      boolean drained;
      try {
        drained =
            Measurement.until(
                () -> recorder.notifications() >= total && unreadIsZero(system), windowEnd);
      } finally {
        trials.progress().stop();
      }
      long end = drained ? recorder.lastCompletionMicros() : BenchClock.nowMicros();
      long activations = recorder.activations();
      long notifications = recorder.notifications();
      double cpuMillis = cpu.elapsedMillis();
      system.stopRunners();
      long remaining = system.unread();
      double seconds = Measurement.seconds(start, end);

      String note =
          drained
              ? String.format(Locale.ROOT, "drained %d notifications in %.1f s", total, seconds)
              : String.format(
                  Locale.ROOT,
                  "capped at %d s before draining: rates over the window; %s read, %d left",
                  config.burnDownCap().toSeconds(),
                  Measurement.percent(total - remaining, total),
                  remaining);
      Map<String, Object> details = new LinkedHashMap<>();
      details.put("seededNotifications", total);
      details.put("agentsWithInbox", seed.agentsWithInbox());
      details.put("seedSeconds", seedSeconds);
      details.put("measuredSeconds", seconds);
      details.put("activations", activations);
      details.put("notificationsRead", notifications);
      details.put("remainingUnread", remaining);
      details.put("drained", drained);
      details.put("errors", system.errors());
      details.put("jvmCpuMillis", cpuMillis);
      if (system.errors() > 0) {
        note += "; " + system.errors() + " errors";
      }
      List<Metric> cpuMetrics = new ArrayList<>();
      if (CpuMeter.measures(trials.systemName()) && activations > 0 && !Double.isNaN(cpuMillis)) {
        cpuMetrics.add(
            Metric.of(
                "burn-down.cpu-per-activation",
                "JVM CPU per activation",
                cpuMillis / activations,
                "ms",
                Better.LOWER));
        cpuMetrics.add(
            Metric.of(
                "burn-down.cpu-per-notification",
                "JVM CPU per notification",
                cpuMillis / Math.max(1, notifications),
                "ms",
                Better.LOWER));
      }
      List<Metric> metrics = new ArrayList<>();
      metrics.addAll(
          List.of(
              Metric.of(
                      "burn-down.activations",
                      "activations/s",
                      activations / seconds,
                      "/s",
                      Better.HIGHER)
                  .charted("throughput"),
              Metric.of(
                      "burn-down.notifications",
                      "notifications/s",
                      notifications / seconds,
                      "/s",
                      Better.HIGHER)
                  .charted("throughput"),
              Metric.of(
                  "burn-down.read",
                  "read of backlog",
                  total == 0 ? 100 : 100.0 * (total - remaining) / total,
                  "%",
                  Better.HIGHER),
              Metric.of("burn-down.seconds", "time measured", seconds, "s", Better.NONE)));
      metrics.addAll(cpuMetrics);
      return new WorkloadResult(NAME, Status.OK, note, metrics, details);
    }
  }

  private static boolean unreadIsZero(BenchSystem system) {
    try {
      return system.unread() == 0;
    } catch (Exception e) {
      throw new IllegalStateException("could not count unread notifications", e);
    }
  }

  private static String status(Recorder recorder, long total, long start) {
    double seconds = Measurement.seconds(start, BenchClock.nowMicros());
    return String.format(
        Locale.ROOT,
        "%5.1fs  read %d/%d (%s)  %d activations  %.0f act/s  %.0f notif/s",
        seconds,
        recorder.notifications(),
        total,
        Measurement.percent(recorder.notifications(), total),
        recorder.activations(),
        recorder.activations() / seconds,
        recorder.notifications() / seconds);
  }
}
