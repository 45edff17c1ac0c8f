package dev.rota.bench.workload;

import dev.rota.bench.BenchConfig;
import dev.rota.bench.metrics.FairnessTracker;
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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Fairness: N agents, no notifications, R exploration runners, activations taking T. Reports the
 * worst staleness against the ideal N·T/R (every agent served once per round, no overhead) and the
 * spread of activation counts.
 */
public final class Fairness implements Workload {

  public static final String NAME = "fairness";

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
    BenchConfig config = trials.config();
    int agents = config.fairnessAgents();
    RunnerSpec spec = new RunnerSpec(config.runners(), mode(), config.activationTime());
    double idealSeconds = agents * (config.activationTime().toNanos() / 1e9) / config.runners();
    String prefix = "  [" + trials.systemName() + "] " + NAME + " ";
    try (Trials.Trial trial = trials.open(new TrialShape(NAME, agents, 0, spec))) {
      BenchSystem system = trial.system();
      system.seedAgents(agents);
      system.seedNotifications(InboxSeed.empty());
      FairnessTracker tracker = new FairnessTracker(agents);
      Recorder recorder = new Recorder(tracker);
      long beforeStart = BenchClock.nowMicros();
      system.startRunners(spec, recorder);
      long start =
          Math.max(beforeStart, Measurement.firstClaim(recorder, java.time.Duration.ofSeconds(60)));
      long end = start + config.fairnessDuration().toNanos() / 1000;
      trials.progress().start(prefix, () -> status(recorder, start, agents));
      try {
        Measurement.until(() -> false, end);
      } finally {
        trials.progress().stop();
      }
      FairnessTracker.Summary summary = tracker.finish(start, end);
      long activations = recorder.activations();
      system.stopRunners();
      double seconds = Measurement.seconds(start, end);
      Map<String, Object> details = new LinkedHashMap<>();
      details.put("agents", agents);
      details.put("activationTimeMs", config.activationTime().toMillis());
      details.put("measuredSeconds", seconds);
      details.put("activations", activations);
      details.put("neverActivated", summary.neverActivated());
      details.put("meanActivations", summary.meanActivations());
      details.put("errors", system.errors());
      double rounds = activations / (double) agents;
      String note =
          String.format(
              Locale.ROOT,
              "%.1f rounds of %d agents in %.0f s; ideal round N·T/R = %.2f s",
              rounds,
              agents,
              seconds,
              idealSeconds);
      if (summary.neverActivated() > 0) {
        note += "; " + summary.neverActivated() + " agents never activated";
      }
      if (system.errors() > 0) {
        note += "; " + system.errors() + " errors";
      }
      return new WorkloadResult(
          NAME,
          Status.OK,
          note,
          List.of(
              Metric.of(
                  "fairness.worst",
                  "worst staleness",
                  summary.worstStalenessSeconds(),
                  "s",
                  Better.LOWER),
              Metric.of("fairness.ideal", "ideal N·T/R", idealSeconds, "s", Better.NONE),
              Metric.of(
                  "fairness.ratio",
                  "worst ÷ ideal",
                  summary.worstStalenessSeconds() / idealSeconds,
                  "",
                  Better.LOWER),
              Metric.of(
                  "fairness.min",
                  "fewest activations of an agent",
                  summary.minActivations(),
                  "",
                  Better.HIGHER),
              Metric.of(
                  "fairness.max",
                  "most activations of an agent",
                  summary.maxActivations(),
                  "",
                  Better.NONE),
              Metric.of(
                  "fairness.cv",
                  "activation count stddev ÷ mean",
                  summary.meanActivations() == 0
                      ? 0
                      : summary.stddevActivations() / summary.meanActivations(),
                  "",
                  Better.LOWER),
              Metric.of(
                  "fairness.rate", "activations/s", activations / seconds, "/s", Better.HIGHER)),
          details);
    }
  }

  private static String status(Recorder recorder, long start, int agents) {
    double seconds = Measurement.seconds(start, BenchClock.nowMicros());
    return String.format(
        Locale.ROOT,
        "%5.1fs  %d activations (%.1f rounds)  %.0f act/s",
        seconds,
        recorder.activations(),
        recorder.activations() / (double) agents,
        recorder.activations() / seconds);
  }
}
