package dev.rota.cluster.rescue;

import dev.rota.cluster.Asks;
import dev.rota.cluster.CborSerializable;
import dev.rota.cluster.agent.AgentEntity;
import dev.rota.cluster.metrics.RotaMetrics;
import dev.rota.cluster.readmodel.ExpiredLease;
import dev.rota.cluster.readmodel.ReadModel;
import dev.rota.core.model.Ids;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.DispatcherSelector;
import org.apache.pekko.actor.typed.SupervisorStrategy;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.Receive;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;
import org.apache.pekko.cluster.sharding.typed.javadsl.ClusterSharding;
import org.apache.pekko.cluster.typed.ClusterSingleton;
import org.apache.pekko.cluster.typed.SingletonActor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Cluster singleton that expires leases the read model shows past expiry (plus a grace), by telling
 * their agents {@link AgentEntity.ExpireLease}. Agents normally expire their own leases on a timer;
 * this catches the ones whose timer died with a node or a passivated entity, since the command
 * wakes the entity. The agent decides: it ignores a lease id that is no longer current or not yet
 * expired by its own clock.
 *
 * <p>On the same tick it rebuilds the rows a skipped event left marked in the read model ({@code
 * agent_schedule.rebuild}), from their agents' answers to {@link AgentEntity.GetRow}: without that,
 * a lease granted by a skipped event would never be seen here nor by the coordinators.
 *
 * <p>{@code rescued} counts (and the log names) leases the agent expired when the rescuer asked,
 * each once while the read model still shows it; an agent that still holds the lease by its own
 * monotonic clock, or no longer holds it, rescued nothing.
 */
public final class LeaseRescuer extends AbstractBehavior<LeaseRescuer.Command> {

  private static final Logger LOG = LoggerFactory.getLogger(LeaseRescuer.class);

  /** Messages of the rescuer. Only {@link GetStats} is for other actors. */
  public sealed interface Command {}

  /** Replies {@link Stats}. */
  public record GetStats(ActorRef<Stats> replyTo) implements Command, CborSerializable {}

  /**
   * @param rescued leases expired on the rescuer's request since it started on this node
   * @param failures queries or expiry requests that failed
   */
  public record Stats(long rescued, long failures) implements CborSerializable {}

  private enum Tick implements Command {
    INSTANCE
  }

  private record Found(List<ExpiredLease> leases) implements Command {}

  private record QueryFailed(Throwable cause) implements Command {}

  private record Acknowledged(ExpiredLease lease) implements Command {}

  private record NotAcknowledged(ExpiredLease lease, Throwable cause) implements Command {}

  /**
   * The agent holds the lease for {@code leftMillis} more by its own clock, or (0) no longer holds
   * it: either way nothing was rescued.
   */
  private record StillLive(ExpiredLease lease, long leftMillis) implements Command {}

  /** A round of row rebuilds ended: how many rows were rewritten, or why it failed. */
  private record Rebuilt(int rows, Throwable failure) implements Command {}

  /** Starts the singleton (on the oldest node) and returns its proxy; call once per node. */
  public static ActorRef<Command> init(
      ActorSystem<?> system, ReadModel readModel, RescueSettings settings) {
    return ClusterSingleton.get(system)
        .init(
            SingletonActor.of(
                Behaviors.supervise(create(readModel, settings, Clock.systemUTC()))
                    .onFailure(
                        SupervisorStrategy.restartWithBackoff(
                            Duration.ofSeconds(1), Duration.ofSeconds(30), 0.2)),
                "LeaseRescuer"));
  }

  /** {@link #init} with the settings under {@code rota.rescue}. */
  public static ActorRef<Command> init(ActorSystem<?> system, ReadModel readModel) {
    return init(system, readModel, RescueSettings.from(system.settings().config()));
  }

  public static Behavior<Command> create(
      ReadModel readModel, RescueSettings settings, Clock clock) {
    return Behaviors.setup(
        context ->
            Behaviors.withTimers(
                timers -> new LeaseRescuer(context, timers, readModel, settings, clock)));
  }

  private final ReadModel readModel;
  private final RescueSettings settings;
  private final Clock clock;
  private final ClusterSharding sharding;
  private final Executor blocking;

  /** Leases asked to expire, and when: not asked again until the read model catches up. */
  private final Map<String, Instant> requested = new HashMap<>();

  /** Leases counted as rescued while the read model still shows them. */
  private final Set<String> counted = new HashSet<>();

  private boolean querying;
  private boolean rebuilding;
  private long rescued;
  private long failures;

  private LeaseRescuer(
      ActorContext<Command> context,
      TimerScheduler<Command> timers,
      ReadModel readModel,
      RescueSettings settings,
      Clock clock) {
    super(context);
    context.setLoggerName(LeaseRescuer.class);
    this.readModel = readModel;
    this.settings = settings;
    this.clock = clock;
    this.sharding = ClusterSharding.get(context.getSystem());
    this.blocking = context.getSystem().dispatchers().lookup(DispatcherSelector.blocking());
    timers.startTimerWithFixedDelay(Tick.INSTANCE, settings.interval());
  }

  @Override
  public Receive<Command> createReceive() {
    return newReceiveBuilder()
        .onMessage(Tick.class, t -> onTick())
        .onMessage(Found.class, this::onFound)
        .onMessage(QueryFailed.class, this::onQueryFailed)
        .onMessage(Acknowledged.class, this::onAcknowledged)
        .onMessage(NotAcknowledged.class, this::onNotAcknowledged)
        .onMessage(StillLive.class, this::onStillLive)
        .onMessage(Rebuilt.class, this::onRebuilt)
        .onMessage(GetStats.class, this::onGetStats)
        .build();
  }

  private Behavior<Command> onTick() {
    if (!rebuilding) {
      rebuilding = true;
      getContext().pipeToSelf(rebuildRows(), Rebuilt::new);
    }
    if (querying) {
      return this;
    }
    querying = true;
    Instant before = clock.instant().minus(settings.grace());
    getContext()
        .pipeToSelf(
            CompletableFuture.supplyAsync(
                () -> readModel.expiredLeases(before, settings.batchSize()), blocking),
            (leases, failure) -> failure == null ? new Found(leases) : new QueryFailed(failure));
    return this;
  }

  private Behavior<Command> onFound(Found found) {
    querying = false;
    Set<String> shown = new HashSet<>();
    found.leases().forEach(l -> shown.add(l.leaseId()));
    // Once the read model no longer shows a lease, its expiry was projected: forget it.
    requested.keySet().retainAll(shown);
    counted.retainAll(shown);
    Instant now = clock.instant();
    // A request that got no visible effect for a few rounds (a lost message, a restarted entity)
    // is repeated.
    Instant retryBefore = now.minus(settings.interval().multipliedBy(3));
    List<String> asked = new ArrayList<>();
    for (ExpiredLease lease : found.leases()) {
      Instant last = requested.get(lease.leaseId());
      if (last == null || last.isBefore(retryBefore)) {
        requested.put(lease.leaseId(), now);
        expire(lease);
        asked.add(lease.agentId());
      }
    }
    if (!asked.isEmpty()) {
      getContext()
          .getLog()
          .debug("Asking {} agent(s) to expire their leases: {}", asked.size(), abbreviated(asked));
    }
    return this;
  }

  private void expire(ExpiredLease lease) {
    Asks.ask(
        getContext(),
        AgentEntity.Reply.class,
        sharding.entityRefFor(AgentEntity.ENTITY_TYPE_KEY, lease.agentId()),
        settings.askTimeout(),
        replyTo -> new AgentEntity.ExpireLease(lease.leaseId(), replyTo),
        (reply, failure) ->
            reply instanceof AgentEntity.Done
                ? new Acknowledged(lease)
                : reply instanceof AgentEntity.LeaseLive live
                    ? new StillLive(lease, live.leftMillis())
                    : reply instanceof AgentEntity.LeaseGone
                        ? new StillLive(lease, 0)
                        : new NotAcknowledged(
                            lease,
                            failure != null
                                ? failure
                                : new IllegalStateException("unexpected reply " + reply)));
  }

  /** Rewrites marked rows from their agents; one agent's failure leaves only its row marked. */
  private CompletionStage<Integer> rebuildRows() {
    return CompletableFuture.supplyAsync(
            () -> readModel.rowsToRebuild(settings.batchSize()), blocking)
        .thenCompose(
            agentIds -> {
              List<CompletableFuture<Boolean>> rows =
                  agentIds.stream().map(this::rebuildRow).toList();
              return CompletableFuture.allOf(rows.toArray(CompletableFuture[]::new))
                  .thenApply(done -> (int) rows.stream().filter(CompletableFuture::join).count());
            });
  }

  private CompletableFuture<Boolean> rebuildRow(String agentId) {
    return sharding
        .entityRefFor(AgentEntity.ENTITY_TYPE_KEY, agentId)
        .<AgentEntity.Reply>ask(AgentEntity.GetRow::new, settings.askTimeout())
        .toCompletableFuture()
        .thenApplyAsync(
            reply ->
                reply instanceof AgentEntity.RowState row
                    && readModel.rebuildRow(row.agent(), row.seqNr(), clock.instant()),
            blocking)
        .exceptionally(
            failure -> {
              // Off the actor's thread: not its context's logger.
              LOG.warn("Read-model row of agent {} not rebuilt: {}", agentId, failure.toString());
              return false;
            });
  }

  private Behavior<Command> onRebuilt(Rebuilt rebuilt) {
    rebuilding = false;
    if (rebuilt.failure() != null) {
      failures++;
      getContext().getLog().warn("Rebuilding read-model rows failed", rebuilt.failure());
    } else if (rebuilt.rows() > 0) {
      getContext().getLog().info("Rebuilt {} read-model row(s) from their agents", rebuilt.rows());
    }
    return this;
  }

  private Behavior<Command> onQueryFailed(QueryFailed failed) {
    querying = false;
    failures++;
    getContext().getLog().warn("Looking for expired leases failed", failed.cause());
    return this;
  }

  private Behavior<Command> onAcknowledged(Acknowledged ack) {
    if (counted.add(ack.lease().leaseId())) {
      rescued++;
      RotaMetrics.get(getContext().getSystem()).leaseRescued();
      getContext()
          .getLog()
          .info(
              "Rescued the expired lease of agent {} ({}, due {})",
              ack.lease().agentId(),
              Ids.leaseLabel(ack.lease().leaseId()),
              ack.lease().expiresAt());
    }
    return this;
  }

  /**
   * The read model's expiry (the granting node's wall clock, read on this one's) is advice: the
   * agent keeps a lease by its own monotonic clock, for instance a whole lease length after it
   * recovered on a new node. Asked again every few rounds while the read model still shows it,
   * which also keeps the agent in memory until its own timer ends the lease.
   */
  private Behavior<Command> onStillLive(StillLive live) {
    getContext()
        .getLog()
        .debug(
            "Agent {} keeps lease {} for {} ms more by its own clock",
            live.lease().agentId(),
            live.lease().leaseId(),
            live.leftMillis());
    return this;
  }

  private Behavior<Command> onNotAcknowledged(NotAcknowledged nack) {
    failures++;
    getContext()
        .getLog()
        .warn(
            "Agent {} did not acknowledge expiring {}: {}",
            nack.lease().agentId(),
            Ids.leaseLabel(nack.lease().leaseId()),
            nack.cause().toString());
    return this;
  }

  private Behavior<Command> onGetStats(GetStats get) {
    get.replyTo().tell(new Stats(rescued, failures));
    return this;
  }

  private static String abbreviated(List<String> ids) {
    return ids.size() <= 5
        ? ids.toString()
        : ids.subList(0, 5) + " and " + (ids.size() - 5) + " more";
  }
}
