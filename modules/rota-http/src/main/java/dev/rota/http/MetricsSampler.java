package dev.rota.http;

import com.typesafe.config.Config;
import dev.rota.cluster.RotaCluster;
import dev.rota.cluster.metrics.RotaMetrics;
import dev.rota.cluster.pool.PoolsReport;
import dev.rota.cluster.readmodel.ReadModel;
import dev.rota.cluster.readmodel.ReadModelStats;
import dev.rota.cluster.runner.RunnerPool;
import io.micrometer.core.instrument.Tags;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.apache.pekko.actor.Cancellable;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.DispatcherSelector;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The cluster-wide gauges of {@code /metrics} (docs/operations.md): every {@code
 * rota.metrics.sample-interval} this node reads what {@code GET /admin/stats} shows — agents,
 * unread and oldest unread age, leases, dead letters, fairness, runners, the pause switch — plus
 * the read model's lag behind the journal, and the figures by tenant ({@link TenantGauges}), on the
 * blocking dispatcher, and keeps the figures for the next scrapes. A scrape never touches the
 * database. Every node reports the same cluster-wide values (aggregate them with {@code max});
 * {@code rota_read_model_up} is 0 while the read model cannot be read, and the other figures then
 * keep their last values.
 */
public final class MetricsSampler {
  private static final Logger log = LoggerFactory.getLogger(MetricsSampler.class);
  private static final String INTERVAL = "rota.metrics.sample-interval";

  private final RotaMetrics metrics;
  private final ReadModel readModel;
  private final ClusterGateway cluster;

  private final Duration askTimeout;
  private final Map<String, Double> values = new ConcurrentHashMap<>();
  private final Map<String, Double> poolDesired = new ConcurrentHashMap<>();
  private final TenantGauges tenantGauges;

  MetricsSampler(
      RotaMetrics metrics, ReadModel readModel, ClusterGateway cluster, Duration askTimeout) {
    this.metrics = metrics;
    this.readModel = readModel;
    this.cluster = cluster;
    this.askTimeout = askTimeout;
    this.tenantGauges = new TenantGauges(metrics);
    register();
  }

  /**
   * Registers the gauges and samples every {@code rota.metrics.sample-interval} until the system
   * stops. A node without a read model registers nothing.
   */
  public static Cancellable start(RotaCluster rota, HttpSettings settings) {
    ActorSystem<?> system = rota.system();
    if (rota.readModel() == null) {
      return null;
    }
    Config config = system.settings().config();
    Duration interval = config.getDuration(INTERVAL);
    MetricsSampler sampler =
        new MetricsSampler(
            RotaMetrics.get(system),
            rota.readModel(),
            new ClusterGateway(rota, settings.askTimeout()),
            settings.askTimeout());
    return system
        .classicSystem()
        .scheduler()
        .scheduleWithFixedDelay(
            Duration.ZERO,
            interval,
            sampler::sampleSafely,
            system.dispatchers().lookup(DispatcherSelector.blocking()));
  }

  private void register() {
    gauge("rota.agents", "Registered agents, by state", Tags.of("state", "registered"));
    gauge("rota.agents", "Registered agents, by state", Tags.of("state", "with_inbox"));
    gauge("rota.agents", "Registered agents, by state", Tags.of("state", "leased"));
    gauge("rota.agents", "Registered agents, by state", Tags.of("state", "paused"));
    gauge("rota.inbox.unread", "Unread notifications over all agents", Tags.empty());
    gauge(
        "rota.inbox.oldest.unread.age.seconds",
        "How long the oldest unread notification has waited",
        Tags.empty());
    gauge("rota.leases.active", "Leases held (agents leased)", Tags.empty());
    gauge("rota.dead.letters", "Dead letters over all agents", Tags.empty());
    gauge(
        "rota.fairness.max.staleness.seconds",
        "How long the stalest agent has gone without an activation",
        Tags.empty());
    gauge(
        "rota.fairness.ideal.interval.seconds",
        "N*T/R: the interval every agent would get if runners served them in turn",
        Tags.empty());
    for (String state : new String[] {"active", "busy", "desired"}) {
      gauge(
          "rota.runners",
          "Runners: active (asked in the last minute or leased), busy (leased), desired",
          Tags.of("state", state));
    }
    gauge("rota.system.paused", "1 while the system is paused (admin pause)", Tags.empty());
    gauge(
        "rota.read.model.up",
        "1 when the last sample of the read model succeeded, 0 when it failed",
        Tags.empty());
    gauge("rota.cluster.members.up", "Cluster members up, as this node sees them", Tags.empty());
    gauge("rota.cluster.partitions", "Partitions of the agent id space", Tags.empty());
  }

  private void gauge(String name, String help, Tags tags) {
    String key = key(name, tags);
    values.putIfAbsent(key, 0.0);
    metrics.gauge(name, help, tags, () -> values.getOrDefault(key, 0.0));
  }

  private static String key(String name, Tags tags) {
    return name + tags;
  }

  private void set(String name, Tags tags, double value) {
    values.put(key(name, tags), value);
  }

  private void set(String name, double value) {
    set(name, Tags.empty(), value);
  }

  void sampleSafely() {
    try {
      sample(Instant.now());
    } catch (RuntimeException e) {
      set("rota.read.model.up", 0);
      log.warn("sampling the cluster-wide metrics failed: {}", e.toString());
    }
  }

  /** One sample: the read model and the cluster's answers at {@code now}. */
  void sample(Instant now) {
    set("rota.cluster.members.up", cluster.nodesUp());
    set("rota.cluster.partitions", cluster.partitions());
    ReadModelStats s = readModel.stats(now);
    Map<String, String> leases = readModel.leasesByRunner();
    set("rota.agents", Tags.of("state", "registered"), s.registered());
    set("rota.agents", Tags.of("state", "with_inbox"), s.withInbox());
    set("rota.agents", Tags.of("state", "leased"), s.leased());
    set("rota.agents", Tags.of("state", "paused"), s.paused());
    set("rota.inbox.unread", s.unread());
    set("rota.inbox.oldest.unread.age.seconds", s.oldestUnreadAge().toMillis() / 1000.0);
    set("rota.leases.active", s.leased());
    set("rota.dead.letters", s.deadLetters());
    set("rota.fairness.max.staleness.seconds", s.maxStaleness().toMillis() / 1000.0);
    set("rota.read.model.up", 1);
    set("rota.system.paused", join(cluster.paused()::toCompletableFuture).paused() ? 1 : 0);
    List<RunnerPool.Runners> pools = join(cluster.pools()::toCompletableFuture);
    RunnerCensus runners =
        RunnerCensus.of(now, join(cluster.runnersSeen()::toCompletableFuture), pools, leases);
    set("rota.runners", Tags.of("state", "active"), runners.active());
    set("rota.runners", Tags.of("state", "busy"), runners.busy());
    Optional<PoolsReport> report = join(cluster.poolsReport()::toCompletableFuture);
    set(
        "rota.runners",
        Tags.of("state", "desired"),
        report.map(PoolsReport::desired).orElse(runners.desired()));
    set(
        "rota.fairness.ideal.interval.seconds",
        AdminRoutes.idealIntervalSeconds(
            s.registered(), metrics.meanActivationDuration(), runners.active()));
    // While the scaler does not answer (a failover), the pools keep their last numbers.
    report.ifPresent(this::setPoolGauges);
    tenantGauges.set(
        cluster.tenantTable(),
        readModel.tenants(),
        join(cluster.tenantShares()::toCompletableFuture),
        now);
  }

  /** {@code rota_pool_desired_runners{pool}}: one series per pool of the scaler's last round. */
  private void setPoolGauges(PoolsReport report) {
    Map<String, Double> desired = new HashMap<>();
    report.pools().forEach(p -> desired.put(p.name(), (double) p.desired()));
    desired.forEach(
        (pool, count) -> {
          if (poolDesired.put(pool, count) == null) {
            metrics.gauge(
                "rota.pool.desired.runners",
                "Runners the pool scaler wants in this pool over the whole cluster (an autoscaler's"
                    + " input for external runners)",
                Tags.of("pool", pool),
                () -> poolDesired.getOrDefault(pool, 0.0));
          }
        });
    poolDesired.keySet().retainAll(desired.keySet());
  }

  private <T> T join(Supplier<java.util.concurrent.CompletableFuture<T>> future) {
    try {
      return future.get().get(askTimeout.toMillis() * 2, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
      throw new IllegalStateException("the cluster did not answer: " + e, e);
    }
  }
}
