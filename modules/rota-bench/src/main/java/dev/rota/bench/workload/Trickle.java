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
 * call to the claim that carries the notification, so it includes the durable accept. A phase
 * publishes for at most {@link RatePublisher#GRACE} × its duration and waits at most the drain time
 * for the last claims; what is still unclaimed then counts with its wait so far.
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
                .mapToLong(r -> RatePublisher.planned(r, config.trickleDuration()))
                .sum()
            + (config.trickleRates().isEmpty() || config.trickleWarmup().isZero()
                ? 0
                : RatePublisher.planned(config.trickleRates().get(0), config.trickleWarmup()));
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
      if (!config.trickleWarmup().isZero() && !config.trickleRates().isEmpty()) {
        // Compiles and sizes every path a publish takes (a JVM's first seconds on two cores go to
        // its JIT), so the phases measure the system rather than its start.
        Recorder unmeasured = new Recorder();
        listener.switchTo(unmeasured);
        RatePublisher.Outcome warmup = warmup(trials, system, config, unmeasured, firstToken);
        firstToken += warmup.planned() + 1;
        details.put("warmupPublished", warmup.published());
        details.put("warmupSeconds", config.trickleWarmup().toSeconds());
      }
      for (int rate : config.trickleRates()) {
        Recorder recorder = new Recorder();
        listener.switchTo(recorder);
        RatePublisher.Outcome outcome = phase(trials, system, recorder, rate, firstToken, notes);
        firstToken += outcome.planned() + 1;
        metrics.addAll(phaseMetrics(rate, recorder, outcome, notes));
        details.put("rate" + rate, phaseDetails(recorder, outcome));
      }
      system.stopRunners();
      if (system.errors() > 0) {
        notes.add(system.errors() + " errors");
      }
    }
    return new WorkloadResult(NAME, Status.OK, String.join("; ", notes), metrics, details);
  }

  /** The first rate for the warm-up time, then its claims drained; nothing of it is recorded. */
  private static RatePublisher.Outcome warmup(
      Trials trials, BenchSystem system, BenchConfig config, Recorder recorder, long firstToken)
      throws InterruptedException {
    RatePublisher.Outcome outcome =
        publishAndDrain(
            config,
            system,
            recorder,
            config.trickleRates().get(0),
            config.trickleWarmup(),
            config.seed() + 1,
            firstToken);
    trials
        .progress()
        .out()
        .printf(
            Locale.ROOT,
            "  [%s] %s warm-up: %d published at %.0f/s for %d s (not measured)%n",
            trials.systemName(),
            NAME,
            outcome.published(),
            outcome.achievedRate(),
            config.trickleWarmup().toSeconds());
    return outcome;
  }

  private RatePublisher.Outcome phase(
      Trials trials,
      BenchSystem system,
      Recorder recorder,
      int rate,
      long firstToken,
      List<String> notes)
      throws InterruptedException {
    BenchConfig config = trials.config();
    String prefix = "  [" + trials.systemName() + "] " + NAME + " " + rate + "/s ";
    long start = BenchClock.nowMicros();
    trials.progress().start(prefix, () -> status(recorder, start));
    RatePublisher.Outcome outcome;
    try {
      outcome =
          publishAndDrain(
              config, system, recorder, rate, config.trickleDuration(), config.seed(), firstToken);
    } finally {
      trials.progress().stop();
    }
    long unclaimed = recorder.censorPending(BenchClock.nowMicros());
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
    if (outcome.published() < outcome.planned()) {
      notes.add(
          String.format(
              Locale.ROOT,
              "%d/s: publishing kept up only %.0f/s and stopped after %.0f s, %d of %d published",
              rate,
              outcome.achievedRate(),
              outcome.seconds(),
              outcome.published(),
              outcome.planned()));
    }
    if (unclaimed > 0) {
      notes.add(
          String.format(
              Locale.ROOT,
              "%d/s: %d notifications still unclaimed %d s after publishing, counted with their"
                  + " wait so far (latency is a lower bound)",
              rate,
              unclaimed,
              config.trickleDrain().toSeconds()));
    }
    if (outcome.failed() > 0) {
      notes.add(
          rate + "/s: " + outcome.failed() + " publishes failed, first: " + outcome.firstError());
    }
    return outcome;
  }

  /**
   * Publishes at {@code rate} for {@code duration}, then waits up to the drain time for the last
   * claims.
   */
  private static RatePublisher.Outcome publishAndDrain(
      BenchConfig config,
      BenchSystem system,
      Recorder recorder,
      int rate,
      Duration duration,
      long seed,
      long firstToken)
      throws InterruptedException {
    var endpoint =
        config.publisherProcess() ? system.publishEndpoint() : java.util.Optional.empty();
    RatePublisher.Outcome outcome =
        endpoint.isPresent()
            ? PublisherProcess.run(
                (java.net.URI) endpoint.get(),
                recorder,
                config.agents(),
                seed,
                rate,
                duration,
                config.publishers(),
                firstToken)
            : new RatePublisher(system, recorder, config.agents(), seed)
                .run(rate, duration, config.publishers(), firstToken);
    long drainEnd = BenchClock.nowMicros() + config.trickleDrain().toNanos() / 1000;
    Measurement.until(() -> recorder.tokensPending() == 0, drainEnd);
    return outcome;
  }

  private static List<Metric> phaseMetrics(
      int rate, Recorder recorder, RatePublisher.Outcome outcome, List<String> notes) {
    String key = NAME + "." + rate;
    String at = rate + "/s: ";
    List<Metric> metrics = new ArrayList<>();
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
      notes.add(rate + "/s: nothing was published, so no latency");
    }
    metrics.add(
        Metric.of(
            key + ".rate",
            at + "achieved publishes/s",
            outcome.achievedRate(),
            "/s",
            Better.HIGHER));
    return metrics;
  }

  private static Map<String, Object> phaseDetails(
      Recorder recorder, RatePublisher.Outcome outcome) {
    Map<String, Object> phase = new LinkedHashMap<>();
    phase.put("planned", outcome.planned());
    phase.put("published", outcome.published());
    phase.put("publishFailures", outcome.failed());
    phase.put("publishSeconds", outcome.seconds());
    phase.put("claimed", recorder.tokensClaimed());
    phase.put("unclaimed", recorder.latencySamples() - recorder.tokensClaimed());
    phase.put("latencySamples", recorder.latencySamples());
    phase.put("activations", recorder.activations());
    return phase;
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
