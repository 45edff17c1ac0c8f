package dev.rota.cluster.metrics;

import dev.rota.core.model.ActivationKind;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.distribution.ValueAtPercentile;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Extension;
import org.apache.pekko.actor.typed.ExtensionId;

/**
 * This node's meters (Micrometer, exposed as Prometheus text on {@code /metrics}): claim latency,
 * inbox wait, assignments by kind, activation durations, journal write latency and batch sizes.
 * Percentiles are computed over a decaying window, so they describe recent behaviour rather than
 * all time.
 */
public final class RotaMetrics implements Extension {
  private static final double[] PERCENTILES = {0.5, 0.99};

  private final PrometheusMeterRegistry registry =
      new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  private final Timer claimLatency;
  private final Timer inboxWait;
  private final Counter inboxAssignments;
  private final Counter explorationAssignments;
  private final Timer activationDuration;
  private final PerSecondWindow recentAssignments = new PerSecondWindow(60);
  private final Timer journalWrite;
  private final DistributionSummary journalBatch;
  private final Counter readModelSkipped;

  private RotaMetrics() {
    claimLatency =
        Timer.builder("rota.claim.latency")
            .description("From a runner's request (or the wake-up of a parked one) to its lease")
            .publishPercentiles(PERCENTILES)
            .register(registry);
    inboxWait =
        Timer.builder("rota.inbox.wait")
            .description("From the oldest carried notification's arrival to its lease")
            .publishPercentiles(PERCENTILES)
            .register(registry);
    inboxAssignments = Counter.builder("rota.assignments").tag("kind", "inbox").register(registry);
    explorationAssignments =
        Counter.builder("rota.assignments").tag("kind", "exploration").register(registry);
    activationDuration =
        Timer.builder("rota.activation.duration")
            .description(
                "From a lease's grant to the completion or failure its runner reported, for the"
                    + " agents hosted on this node")
            .register(registry);
    journalWrite =
        Timer.builder("rota.journal.write")
            .description(
                "From an event write's arrival at the journal to its commit (queueing included)")
            .publishPercentiles(PERCENTILES)
            .register(registry);
    journalBatch =
        DistributionSummary.builder("rota.journal.batch")
            .description("Events committed in one journal transaction")
            .baseUnit("events")
            .register(registry);
    readModelSkipped =
        Counter.builder("rota.readmodel.skipped")
            .description(
                "Events the read-model projection could not apply and skipped (recorded in"
                    + " rota_skipped_event)")
            .register(registry);
  }

  public static RotaMetrics get(ActorSystem<?> system) {
    return Id.INSTANCE.apply(system);
  }

  public PrometheusMeterRegistry registry() {
    return registry;
  }

  public void assigned(ActivationKind kind, Duration claim, Duration wait) {
    claimLatency.record(claim);
    if (kind == ActivationKind.INBOX) {
      inboxAssignments.increment();
      if (wait != null) {
        inboxWait.record(wait.isNegative() ? Duration.ZERO : wait);
      }
    } else {
      explorationAssignments.increment();
    }
    recentAssignments.increment();
  }

  /**
   * An activation of an agent hosted here ended by its runner's report (completion or failure).
   * Expired leases are left out: they measure the lease length, not the work.
   */
  public void activationEnded(Duration duration) {
    activationDuration.record(duration.isNegative() ? Duration.ZERO : duration);
  }

  /** The read-model projection skipped an event it could not apply. */
  public void readModelEventSkipped() {
    readModelSkipped.increment();
  }

  /** One journal transaction committed {@code events} events. */
  public void journalCommitted(int events) {
    journalBatch.record(events);
  }

  /** One write (an agent's persist) was committed {@code latency} after it reached the journal. */
  public void journalWritten(Duration latency) {
    journalWrite.record(latency.isNegative() ? Duration.ZERO : latency);
  }

  /**
   * The mean activation duration since this node started, zero before the first one. Agents are
   * spread evenly over the nodes, so one node's mean estimates the cluster's.
   */
  public Duration meanActivationDuration() {
    return Duration.ofNanos((long) activationDuration.mean(TimeUnit.NANOSECONDS));
  }

  /** Assignments made on this node in the last minute, per second. */
  public double assignmentsPerSecond1m() {
    return recentAssignments.total() / 60.0;
  }

  public double claimMillis(double percentile) {
    return percentile(claimLatency, percentile);
  }

  public double inboxWaitMillis(double percentile) {
    return percentile(inboxWait, percentile);
  }

  public double journalWriteMillis(double percentile) {
    return percentile(journalWrite, percentile);
  }

  /** Journal transactions committed since this node started. */
  public long journalCommits() {
    return journalBatch.count();
  }

  /** Mean events per journal transaction since this node started. */
  public double journalEventsPerCommit() {
    return journalBatch.mean();
  }

  private static double percentile(Timer timer, double percentile) {
    for (ValueAtPercentile v : timer.takeSnapshot().percentileValues()) {
      if (v.percentile() == percentile) {
        return v.value(TimeUnit.MILLISECONDS);
      }
    }
    return 0;
  }

  private static final class Id extends ExtensionId<RotaMetrics> {
    static final Id INSTANCE = new Id();

    @Override
    public RotaMetrics createExtension(ActorSystem<?> system) {
      return new RotaMetrics();
    }
  }
}
