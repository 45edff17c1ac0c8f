package dev.rota.http;

import dev.rota.cluster.ClusterAsk;
import dev.rota.cluster.RotaCluster;
import dev.rota.cluster.assign.Dispatcher;
import dev.rota.cluster.assign.Dispatcher.RunnerSeen;
import dev.rota.cluster.health.RunnerHealth;
import dev.rota.cluster.pool.PoolScaler;
import dev.rota.cluster.pool.PoolsReport;
import dev.rota.cluster.rescue.JournalMaintenance;
import dev.rota.cluster.rescue.StorageReport;
import dev.rota.cluster.runner.RunnerPool;
import dev.rota.cluster.system.SystemControl;
import dev.rota.cluster.system.SystemControl.PauseState;
import dev.rota.cluster.tenant.TenantDirectory;
import dev.rota.cluster.tenant.TenantGate;
import dev.rota.cluster.tenant.TenantSharesView;
import dev.rota.cluster.tenant.TenantTables;
import dev.rota.core.model.AgentExplanation;
import dev.rota.core.tenant.TenantSpec;
import java.time.Duration;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Scheduler;
import org.apache.pekko.actor.typed.javadsl.AskPattern;
import org.apache.pekko.cluster.MemberStatus;
import org.apache.pekko.cluster.typed.Cluster;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How the admin routes ask the cluster as a whole: the pause switch, the pool scaler and the
 * journal's maintenance (singletons), and the runners every node's dispatcher has seen and every
 * node's pool runs, found through the receptionist. Each ask is bounded by {@code
 * rota.http.ask-timeout}; a node that does not answer in time is left out of a listing (and logged)
 * rather than failing it, so one slow node does not blind the admin.
 */
public final class ClusterGateway {
  private static final Logger log = LoggerFactory.getLogger(ClusterGateway.class);

  private final ActorSystem<?> system;
  private final ActorRef<SystemControl.Command> systemControl;
  private final ActorRef<PoolScaler.Command> poolScaler;
  private final ActorRef<RunnerHealth.Command> runnerHealth;
  private final ActorRef<TenantDirectory.Command> tenantDirectory;
  private final ActorRef<Dispatcher.Command> dispatcher;
  private final ActorRef<JournalMaintenance.Command> journalMaintenance;
  private final int partitions;
  private final Duration askTimeout;
  private final Scheduler scheduler;
  private final ClusterAsk nodes;
  private final Duration targetStaleness;

  public ClusterGateway(RotaCluster rota, Duration askTimeout) {
    this.system = rota.system();
    this.systemControl = rota.systemControl();
    this.poolScaler = rota.poolScaler();
    this.runnerHealth = rota.runnerHealth();
    this.tenantDirectory = rota.tenantDirectory();
    this.dispatcher = rota.dispatcher();
    this.journalMaintenance = rota.journalMaintenance();
    this.partitions = rota.agentSettings().partitions();
    this.askTimeout = askTimeout;
    this.scheduler = system.scheduler();
    this.nodes = new ClusterAsk(system, askTimeout);
    this.targetStaleness = system.settings().config().getDuration("rota.pools.target-staleness");
  }

  /**
   * The caps of {@code tenant} as its gate counts them now; null when the tenant is not capped or
   * its gate did not answer (explain then names no tenant reason).
   */
  public CompletionStage<AgentExplanation.TenantLoad> tenantLoad(String tenant) {
    if (!TenantTables.get(system).current().specOf(tenant).capped()) {
      return CompletableFuture.completedFuture(null);
    }
    return TenantGate.status(system, tenant, askTimeout)
        .thenApply(
            s ->
                new AgentExplanation.TenantLoad(
                    s.tenant(),
                    s.held(),
                    s.maxConcurrent(),
                    s.lastMinute(),
                    s.maxPerMinute(),
                    s.rateUntil()))
        .exceptionally(failure -> null);
  }

  public CompletionStage<PauseState> paused() {
    return AskPattern.ask(systemControl, SystemControl.GetPaused::new, askTimeout, scheduler);
  }

  public CompletionStage<PauseState> setPaused(boolean paused) {
    return AskPattern.ask(
        systemControl,
        (ActorRef<PauseState> replyTo) -> new SystemControl.SetPaused(paused, replyTo),
        askTimeout,
        scheduler);
  }

  /**
   * Every runner's figures and block; empty (no figures, no blocks shown) when the runner health
   * singleton did not answer in time, so that a listing still answers during its fail-over.
   */
  public CompletionStage<Map<String, RunnerHealth.RunnerHealthView>> runnerHealth() {
    return AskPattern.<RunnerHealth.Command, RunnerHealth.HealthReport>ask(
            runnerHealth, RunnerHealth.GetReport::new, askTimeout, scheduler)
        .handle(
            (report, failure) -> {
              if (failure != null) {
                log.warn("Runner health did not answer: {}", failure.toString());
                return Map.<String, RunnerHealth.RunnerHealthView>of();
              }
              return report.runners();
            });
  }

  /**
   * A runner reports its own health; {@code scope} names the tenants of its token (null: a token of
   * every tenant), whose cap of blocked runners the report counts against.
   */
  public CompletionStage<RunnerHealth.RunnerState> reportHealth(
      String runnerId, boolean degraded, String reason, long seconds, String scope) {
    return AskPattern.ask(
        runnerHealth,
        (ActorRef<RunnerHealth.RunnerState> replyTo) ->
            new RunnerHealth.Report(runnerId, degraded, reason, seconds, scope, replyTo),
        askTimeout,
        scheduler);
  }

  /** No new work for the runner; its current lease runs on. */
  public CompletionStage<RunnerHealth.RunnerState> drainRunner(String runnerId) {
    return AskPattern.ask(
        runnerHealth,
        (ActorRef<RunnerHealth.RunnerState> replyTo) -> new RunnerHealth.Drain(runnerId, replyTo),
        askTimeout,
        scheduler);
  }

  /** Clears the runner's degradation or drain. */
  public CompletionStage<RunnerHealth.RunnerState> restoreRunner(String runnerId) {
    return AskPattern.ask(
        runnerHealth,
        (ActorRef<RunnerHealth.RunnerState> replyTo) -> new RunnerHealth.Restore(runnerId, replyTo),
        askTimeout,
        scheduler);
  }

  /** Every runner any dispatcher has seen, once each, as last seen by any of them. */
  public CompletionStage<List<RunnerSeen>> runnersSeen() {
    return nodes
        .<Dispatcher.Command, Dispatcher.Runners>repliesOfEveryNode(
            Dispatcher.SERVICE_KEY, Dispatcher.GetRunners::new)
        .thenApply(
            replies -> {
              Map<String, RunnerSeen> latest = new HashMap<>();
              for (Dispatcher.Runners reply : replies) {
                for (RunnerSeen seen : reply.runners()) {
                  latest.merge(
                      seen.runnerId(),
                      seen,
                      (a, b) -> a.lastSeenAt().isAfter(b.lastSeenAt()) ? a : b);
                }
              }
              return latest.values().stream()
                  .sorted(Comparator.comparing(RunnerSeen::runnerId))
                  .toList();
            });
  }

  /** The tenant directory's table, with its revision. */
  public CompletionStage<TenantDirectory.Listing> tenants() {
    return AskPattern.ask(tenantDirectory, TenantDirectory.GetTenants::new, askTimeout, scheduler);
  }

  /** Creates or changes a tenant. */
  public CompletionStage<TenantDirectory.Stored> setTenant(TenantSpec spec) {
    return AskPattern.ask(
        tenantDirectory,
        (ActorRef<TenantDirectory.Stored> replyTo) -> new TenantDirectory.SetTenant(spec, replyTo),
        askTimeout,
        scheduler);
  }

  /** Deletes a tenant (the caller checked it has no agents). */
  public CompletionStage<TenantDirectory.Deleted> deleteTenant(String name) {
    return AskPattern.ask(
        tenantDirectory,
        (ActorRef<TenantDirectory.Deleted> replyTo) ->
            new TenantDirectory.DeleteTenant(name, replyTo),
        askTimeout,
        scheduler);
  }

  /** This node's tenant table (the directory's last publication it applied). */
  public dev.rota.core.tenant.TenantTable tenantTable() {
    return dev.rota.cluster.tenant.TenantTables.get(system).current();
  }

  /**
   * Each tenant's share of runner time over about the last minute, as this node's dispatcher
   * applies it (cluster-wide: it adds up what every partition's coordinator counted).
   */
  public CompletionStage<TenantSharesView> tenantShares() {
    return AskPattern.ask(dispatcher, Dispatcher.GetTenantShares::new, askTimeout, scheduler);
  }

  /** Every node's in-cluster runner pool: its runners and the size each pool is held at. */
  public CompletionStage<List<RunnerPool.Runners>> pools() {
    return nodes.repliesOfEveryNode(RunnerPool.SERVICE_KEY, RunnerPool.GetRunners::new);
  }

  /**
   * The pool scaler's last round; empty when this node has no scaler, the scaler has not counted
   * yet, or it did not answer in time (a failover in progress).
   */
  public CompletionStage<Optional<PoolsReport>> poolsReport() {
    if (poolScaler == null) {
      return CompletableFuture.completedFuture(Optional.empty());
    }
    return AskPattern.<PoolScaler.Command, PoolScaler.Reply>ask(
            poolScaler, PoolScaler.GetPools::new, askTimeout, scheduler)
        .thenApply(reply -> Optional.ofNullable(reply.report()))
        .exceptionally(
            failure -> {
              log.warn("the pool scaler did not answer: {}", failure.toString());
              return Optional.empty();
            });
  }

  /**
   * The journal maintenance's last good run and the storage sampled after it (decision 134); empty
   * when this node has no database, no run has ended well since the singleton started, or it did
   * not answer in time.
   */
  public CompletionStage<Optional<StorageReport>> storage() {
    if (journalMaintenance == null) {
      return CompletableFuture.completedFuture(Optional.empty());
    }
    return AskPattern.<JournalMaintenance.Command, JournalMaintenance.StorageReply>ask(
            journalMaintenance, JournalMaintenance.GetStorage::new, askTimeout, scheduler)
        .thenApply(reply -> Optional.ofNullable(reply.report()))
        .exceptionally(
            failure -> {
              log.warn("the journal's maintenance did not answer: {}", failure.toString());
              return Optional.empty();
            });
  }

  /** The target of the capacity answers, {@code rota.pools.target-staleness}. */
  public Duration targetStaleness() {
    return targetStaleness;
  }

  /** Cluster members that are up, as this node sees them. */
  public int nodesUp() {
    int up = 0;
    for (var member : Cluster.get(system).state().getMembers()) {
      if (member.status().equals(MemberStatus.up())) {
        up++;
      }
    }
    return up;
  }

  public int partitions() {
    return partitions;
  }
}
