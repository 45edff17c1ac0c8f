package dev.rota.bench.workload;

import dev.rota.bench.BenchConfig;
import dev.rota.bench.metrics.Recorder;
import dev.rota.bench.metrics.SwitchableListener;
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
 * Trickle: idle notification runners, notifications published at a fixed rate (one phase per rate,
 * same runners), notification→claim latency p50/p99/max. Latency runs from just before the publish
 * call to the claim that carries the notification, so it includes the durable accept.
 */
public final class Trickle implements Workload {

  public static final String NAME = "trickle";

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
    RunnerSpec spec = new RunnerSpec(config.runners(), mode(), Duration.ZERO);
    long expected =
        config.trickleRates().stream()
            .mapToLong(r -> Math.round(r * (config.trickleDuration().toNanos() / 1e9)))
            .sum();
    List<Metric> metrics = new ArrayList<>();
    Map<String, Object> details = new LinkedHashMap<>();
    List<String> notes = new ArrayList<>();
    try (Trials.Trial trial = trials.open(new TrialShape(NAME, config.agents(), expected, spec))) {
      BenchSystem system = trial.system();
      system.seedAgents(config.agents());
      system.seedNotifications(InboxSeed.empty());
      SwitchableListener listener = new SwitchableListener(new Recorder());
      system.startRunners(spec, listener);
      long firstToken = 1;
      for (int rate : config.trickleRates()) {
        Recorder recorder = new Recorder();
        listener.switchTo(recorder);
        String prefix = "  [" + trials.systemName() + "] " + NAME + " " + rate + "/s ";
        long start = BenchClock.nowMicros();
        trials.progress().start(prefix, () -> status(recorder, start));
        RatePublisher.Outcome outcome;
        boolean allClaimed;
        try {
          outcome =
              new RatePublisher(system, recorder, config.agents(), config.seed())
                  .run(rate, config.trickleDuration(), config.publishers(), firstToken);
          long drainEnd = BenchClock.nowMicros() + config.trickleDrain().toNanos() / 1000;
          allClaimed = Measurement.until(() -> recorder.tokensPending() == 0, drainEnd);
        } finally {
          trials.progress().stop();
        }
        firstToken += outcome.published() + outcome.failed() + 1;
        String key = NAME + "." + rate;
        String at = rate + "/s ";
        if (recorder.latencySamples() > 0) {
          metrics.add(
              Metric.of(key + ".p50", at + "p50", recorder.latencyMillis(50), "ms", Better.LOWER)
                  .charted("latency"));
          metrics.add(
              Metric.of(key + ".p99", at + "p99", recorder.latencyMillis(99), "ms", Better.LOWER)
                  .charted("latency"));
          metrics.add(
              Metric.of(key + ".max", at + "max", recorder.latencyMillis(100), "ms", Better.LOWER)
                  .charted("latency"));
        } else {
          notes.add(rate + "/s: no notification was claimed, so no latency");
        }
        metrics.add(
            Metric.of(
                key + ".rate",
                at + "achieved publish rate",
                outcome.achievedRate(),
                "/s",
                Better.HIGHER));
        Map<String, Object> phase = new LinkedHashMap<>();
        phase.put("published", outcome.published());
        phase.put("publishFailures", outcome.failed());
        phase.put("publishSeconds", outcome.seconds());
        phase.put("claimed", recorder.tokensClaimed());
        phase.put("unclaimed", recorder.tokensPending());
        phase.put("latencySamples", recorder.latencySamples());
        phase.put("activations", recorder.activations());
        details.put("rate" + rate, phase);
        trials
            .progress()
            .out()
            .printf(
                Locale.ROOT,
                "%spublished %d at %.0f/s, p50 %.1f ms, p99 %.1f ms, max %.1f ms%n",
                prefix,
                outcome.published(),
                outcome.achievedRate(),
                recorder.latencyMillis(50),
                recorder.latencyMillis(99),
                recorder.latencyMillis(100));
        if (outcome.achievedRate() < rate * 0.95) {
          notes.add(
              String.format(
                  Locale.ROOT,
                  "%d/s: publishing reached only %.0f/s",
                  rate,
                  outcome.achievedRate()));
        }
        if (!allClaimed) {
          notes.add(
              rate
                  + "/s: "
                  + recorder.tokensPending()
                  + " notifications unclaimed after the drain wait");
        }
        if (outcome.failed() > 0) {
          notes.add(
              rate
                  + "/s: "
                  + outcome.failed()
                  + " publishes failed, first: "
                  + outcome.firstError());
        }
      }
      system.stopRunners();
      if (system.errors() > 0) {
        notes.add(system.errors() + " errors");
      }
    }
    return new WorkloadResult(NAME, Status.OK, String.join("; ", notes), metrics, details);
  }

  private static String status(Recorder recorder, long start) {
    double seconds = Measurement.seconds(start, BenchClock.nowMicros());
    return String.format(
        Locale.ROOT,
        "%5.1fs  claimed %d  waiting %d  p50 %.1f ms  p99 %.1f ms",
        seconds,
        recorder.tokensClaimed(),
        recorder.tokensPending(),
        recorder.latencyMillis(50),
        recorder.latencyMillis(99));
  }
}
