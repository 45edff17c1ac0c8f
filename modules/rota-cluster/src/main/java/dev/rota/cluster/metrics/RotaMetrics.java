package dev.rota.cluster.metrics;

import dev.rota.core.model.ActivationKind;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.FileDescriptorMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.core.instrument.config.MeterFilter;
import io.micrometer.core.instrument.distribution.ValueAtPercentile;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Extension;
import org.apache.pekko.actor.typed.ExtensionId;

/**
 * This node's meters (Micrometer, exposed as Prometheus text on {@code /metrics}): claim latency,
 * inbox wait, assignments by kind, activation durations, journal write latency and batch sizes;
 * counters of what the agents hosted here accepted, refused, granted, expired and dead-lettered;
 * HTTP requests by route and status; activations and runner time by tenant ({@link TenantMeters});
 * the cluster-wide gauges a sampler sets ({@link #gauge}); and the JVM and process binders. Every
 * meter has a description, which Prometheus shows as HELP. Percentiles are computed over a decaying
 * window, so they describe recent behaviour rather than all time. docs/operations.md lists every
 * series.
 */
public final class RotaMetrics implements Extension {
  private static final double[] PERCENTILES = {0.5, 0.99};

  private final PrometheusMeterRegistry registry =
      new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  private final Timer claimLatency;
  private final Timer inboxWait;
  private final Counter inboxAssignments;
  private final Counter explorationAssignments;
  private final Counter scheduledAssignments;
  private final Timer activationDuration;
  private final PerSecondWindow recentAssignments = new PerSecondWindow(60);
  private final Timer journalWrite;
  private final DistributionSummary journalBatch;
  private final Counter readModelSkipped;
  private final Counter notificationsAccepted;
  private final Counter notificationsDuplicate;
  private final Counter leasesExpired;
  private final Counter leasesRescued;
  private final Counter leasesHandBackFailed;
  private final Map<String, Counter> leasesHandedBack = new ConcurrentHashMap<>();
  private final Counter deadLettered;
  private final Map<String, Counter> leasesGranted = new ConcurrentHashMap<>();
  private final Map<String, Counter> notificationsRefused = new ConcurrentHashMap<>();
  private final Map<String, Gauge> gauges = new ConcurrentHashMap<>();
  private final Map<String, Counter> runnerActivations = new ConcurrentHashMap<>();
  private final Map<String, Counter> runnerBlocks = new ConcurrentHashMap<>();

  private final TenantMeters tenants = new TenantMeters(registry);

  /** The timers of {@link #httpRequest}: looked up once per series, not built per request. */
  private final Map<HttpSeries, Timer> httpRequests = new ConcurrentHashMap<>();

  private record HttpSeries(String method, String route, int status) {}

  private final JvmGcMetrics gcMetrics = new JvmGcMetrics();
  private boolean jvmBound;

  /** The configured pool names: the only pool labels besides {@code external}. */
  private volatile java.util.Set<String> knownPools = java.util.Set.of();

  /**
   * The pool label of a runner's series: the pool part of an in-cluster runner id ({@code
   * node/pool-index}) when that pool is configured ({@code rota.runners.pools}, {@code
   * rota.pools.pools}), else {@code external}. Never taken from the raw runner id alone, which any
   * runner token chooses: the label has as many values as the configuration has pools.
   */
  public String poolLabel(String runnerId) {
    String pool = dev.rota.core.health.RunnerOutcome.poolOf(runnerId);
    return knownPools.contains(pool) ? pool : "external";
  }

  /** The pool names configured in {@code config} (both lists, when present). */
  static java.util.Set<String> configuredPools(com.typesafe.config.Config config) {
    java.util.Set<String> names = new java.util.HashSet<>();
    for (String key : java.util.List.of("rota.runners.pools", "rota.pools.pools")) {
      if (config.hasPath(key)) {
        try {
          for (com.typesafe.config.Config pool : config.getConfigList(key)) {
            if (pool.hasPath("name")) {
              names.add(pool.getString("name"));
            }
          }
        } catch (com.typesafe.config.ConfigException e) {
          // a malformed list fails where it is read for its own use; no labels from it here
        }
      }
    }
    return java.util.Set.copyOf(names);
  }

  private RotaMetrics() {
    // promtool's lint refuses two of the binders' names (an abbreviated unit, a gauge named
    // _count); process_cpu_usage and system_cpu_usage stay.
    registry
        .config()
        .meterFilter(
            MeterFilter.deny(
                id ->
                    id.getName().equals("process.cpu.time")
                        || id.getName().equals("system.cpu.count")));
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
    inboxAssignments = assignments("inbox");
    explorationAssignments = assignments("exploration");
    scheduledAssignments = assignments("scheduled");
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
                "Events the read model could not hold and skipped (recorded in"
                    + " rota_skipped_event)")
            .register(registry);
    notificationsAccepted =
        Counter.builder("rota.notifications.accepted")
            .description("Notifications persisted into the inbox of an agent hosted on this node")
            .register(registry);
    notificationsDuplicate =
        Counter.builder("rota.notifications.duplicates")
            .description(
                "Notifications answered with an earlier one's id (same dedupeKey); nothing stored")
            .register(registry);
    for (String reason : new String[] {"inbox_full", "not_found"}) {
      notificationRefused(reason, 0);
    }
    leasesExpired =
        Counter.builder("rota.leases.expired")
            .description(
                "Leases that expired without a completion or failure report (counted as a retry)")
            .register(registry);
    leasesRescued =
        Counter.builder("rota.leases.rescued")
            .description(
                "Expired leases the lease rescuer (cluster singleton, on this node) had expired")
            .register(registry);
    leasesHandBackFailed =
        Counter.builder("rota.leases.hand.back.failed")
            .description(
                "Leases granted to a claim whose runner never took them that could not be handed"
                    + " back; they expire (a retry) and the lease rescuer counts them")
            .register(registry);
    for (String reason : new String[] {"gone", "late"}) {
      leaseHandedBack(reason, 0);
    }
    deadLettered =
        Counter.builder("rota.notifications.dead.lettered")
            .description("Notifications moved to their agent's dead letters")
            .register(registry);
    for (ActivationKind kind : ActivationKind.values()) {
      leaseGranted(kind.wireName(), 0);
    }
  }

  private Counter assignments(String kind) {
    return Counter.builder("rota.assignments")
        .description("Leases granted through this node's dispatcher, by kind")
        .tag("kind", kind)
        .register(registry);
  }

  private void leaseGranted(String kind, double amount) {
    leasesGranted
        .computeIfAbsent(
            kind,
            k ->
                Counter.builder("rota.leases.granted")
                    .description("Leases granted by agents hosted on this node, by kind")
                    .tag("kind", k)
                    .register(registry))
        .increment(amount);
  }

  private void notificationRefused(String reason, double amount) {
    notificationsRefused
        .computeIfAbsent(
            reason,
            r ->
                Counter.builder("rota.notifications.refused")
                    .description(
                        "Notifications an agent refused, by reason (inbox_full: 429, not_found:"
                            + " 404); malformed ones are in rota_http_requests by status")
                    .tag("reason", r)
                    .register(registry))
        .increment(amount);
  }

  /** A notification was persisted ({@code duplicate} false) or matched an earlier one. */
  public void notificationAccepted(boolean duplicate) {
    (duplicate ? notificationsDuplicate : notificationsAccepted).increment();
  }

  /** An agent refused a notification: {@code inbox_full} or {@code not_found}. */
  public void notificationRefused(String reason) {
    notificationRefused(reason, 1);
  }

  /** An agent hosted here granted a lease of {@code kind} ({@code inbox}, ...). */
  public void leaseGranted(ActivationKind kind) {
    leaseGranted(kind.wireName(), 1);
  }

  /** A lease expired; {@code deadLettered} notifications died with it. */
  public void leaseExpired(int deadLettered) {
    leasesExpired.increment();
    deadLettered(deadLettered);
  }

  /** {@code count} notifications moved to dead letters. */
  public void deadLettered(int count) {
    if (count > 0) {
      deadLettered.increment(count);
    }
  }

  private void leaseHandedBack(String reason, double amount) {
    leasesHandedBack
        .computeIfAbsent(
            reason,
            r ->
                Counter.builder("rota.leases.handed.back")
                    .description(
                        "Leases handed back unused (snooze 0 s, no attempt used) because the"
                            + " claiming runner never took them, by reason (gone: its long"
                            + " poll's connection closed; late: granted after the claim was"
                            + " answered)")
                    .tag("reason", r)
                    .register(registry))
        .increment(amount);
  }

  /** A lease granted to a runner that never took it was handed back. */
  public void leaseHandedBack(String reason) {
    leaseHandedBack(reason, 1);
  }

  /** Handing back such a lease failed; it will expire. */
  public void leaseHandBackFailed() {
    leasesHandBackFailed.increment();
  }

  /**
   * An activation ended on a runner of {@code pool} ({@code external} for runners outside the
   * cluster): {@code outcome} is completed, failed or expired. Labelled by pool, never by runner:
   * runner ids are unbounded.
   */
  public void runnerActivation(String pool, String outcome) {
    runnerActivations
        .computeIfAbsent(
            pool + " " + outcome,
            k ->
                Counter.builder("rota.runner.activations")
                    .description("Activations that ended, by the runner's pool and how they ended")
                    .tag("pool", pool)
                    .tag("outcome", outcome)
                    .register(registry))
        .increment();
  }

  /** A runner of {@code pool} stopped getting work: {@code status} is degraded or draining. */
  public void runnerBlocked(String pool, String status) {
    runnerBlocks
        .computeIfAbsent(
            pool + " " + status,
            k ->
                Counter.builder("rota.runner.blocks")
                    .description(
                        "Runners that stopped getting work, by pool and status (degraded,"
                            + " draining)")
                    .tag("pool", pool)
                    .tag("status", status)
                    .register(registry))
        .increment();
  }

  /** The meters by tenant: activations and runner time, the tenant label bounded. */
  public TenantMeters tenants() {
    return tenants;
  }

  /** The lease rescuer had an expired lease expired. */
  public void leaseRescued() {
    leasesRescued.increment();
  }

  /**
   * Registers (once) a gauge that reads {@code value} at every scrape: for figures another part of
   * the node samples, such as the read model's counts. Later calls with the same name and tags keep
   * the first supplier.
   */
  public void gauge(String name, String description, Tags tags, Supplier<Number> value) {
    gauges.computeIfAbsent(
        name + tags,
        k ->
            Gauge.builder(name, value)
                .description(description)
                .tags(tags)
                .strongReference(true)
                .register(registry));
  }

  /** One HTTP request answered: by method, route template (not the raw path) and status. */
  public void httpRequest(String method, String route, int status, long nanos) {
    httpRequests
        .computeIfAbsent(
            new HttpSeries(method, route, status),
            s ->
                Timer.builder("rota.http.requests")
                    .description(
                        "HTTP requests answered by this node, by method, route (the OpenAPI path)"
                            + " and status; for an event stream, the time to its first byte")
                    .tags(
                        "method",
                        s.method(),
                        "route",
                        s.route(),
                        "status",
                        Integer.toString(s.status()))
                    .register(registry))
        .record(nanos, TimeUnit.NANOSECONDS);
  }

  /** Releases what the binders hold (the GC listener). */
  void close() {
    gcMetrics.close();
  }

  public static RotaMetrics get(ActorSystem<?> system) {
    return Id.INSTANCE.apply(system);
  }

  /**
   * The registry to scrape. The JVM and process binders are bound at the first call, so an actor
   * system that is never scraped (most tests) does not pay for them on its hot path.
   */
  public PrometheusMeterRegistry registry() {
    bindJvmMetrics();
    return registry;
  }

  private synchronized void bindJvmMetrics() {
    if (jvmBound) {
      return;
    }
    jvmBound = true;
    new JvmMemoryMetrics().bindTo(registry);
    gcMetrics.bindTo(registry);
    new JvmThreadMetrics().bindTo(registry);
    new ClassLoaderMetrics().bindTo(registry);
    new ProcessorMetrics().bindTo(registry);
    new UptimeMetrics().bindTo(registry);
    new FileDescriptorMetrics().bindTo(registry);
  }

  public void assigned(ActivationKind kind, Duration claim, Duration wait) {
    claimLatency.record(claim);
    if (kind == ActivationKind.INBOX) {
      inboxAssignments.increment();
      if (wait != null) {
        inboxWait.record(wait.isNegative() ? Duration.ZERO : wait);
      }
    } else if (kind == ActivationKind.SCHEDULED) {
      scheduledAssignments.increment();
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

  /** The read model skipped an event it could not hold. */
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
      RotaMetrics metrics = new RotaMetrics();
      metrics.knownPools = configuredPools(system.settings().config());
      system.getWhenTerminated().whenComplete((done, failure) -> metrics.close());
      return metrics;
    }
  }
}
