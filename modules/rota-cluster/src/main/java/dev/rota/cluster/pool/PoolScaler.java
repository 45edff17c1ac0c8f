package dev.rota.cluster.pool;

import dev.rota.cluster.Asks;
import dev.rota.cluster.CborSerializable;
import dev.rota.cluster.ClusterAsk;
import dev.rota.cluster.assign.Dispatcher;
import dev.rota.cluster.metrics.RotaMetrics;
import dev.rota.cluster.readmodel.ReadModel;
import dev.rota.cluster.runner.RunnerPool;
import dev.rota.cluster.system.SystemControl;
import dev.rota.core.pool.BacklogGroup;
import dev.rota.core.pool.PoolLoad;
import dev.rota.core.pool.PoolSpec;
import dev.rota.core.pool.Pools;
import dev.rota.core.pool.ScalingPolicy;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.DispatcherSelector;
import org.apache.pekko.actor.typed.SupervisorStrategy;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.AskPattern;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.Receive;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;
import org.apache.pekko.cluster.typed.ClusterSingleton;
import org.apache.pekko.cluster.typed.SingletonActor;

/**
 * Cluster singleton that sizes the runner pools of a cluster. Every {@code rota.pools.interval} it
 * reads the backlog from the read model (grouped by capability set), asks every node's runner pool
 * and dispatcher for their runners, and lets {@link ScalingPolicy} decide each pool's desired
 * runners. Configured pools that share a name with in-cluster runner pools are applied to them,
 * spread over the nodes that run one ({@link Pools#spread}, within what each node accepted); the
 * numbers of every pool are answered to {@link GetPools} for the admin API and the metric.
 *
 * <p>While the system is paused every pool holds its count: claims are answered {@code paused}, so
 * the inbox that builds up says nothing about runners (it counts at once after the resume).
 *
 * <p>The policy's memory (last change, recent needs) lives only here: a scaler that takes over
 * after a failover starts from the sizes the pools have, so it neither drops nor jumps them, and
 * waits a full scale-down delay before shrinking anything.
 */
public final class PoolScaler extends AbstractBehavior<PoolScaler.Command> {

  /** Messages of the scaler. Only {@link GetPools} is for other actors. */
  public sealed interface Command {}

  /** Replies the last round's {@link PoolsReport}, or null before the first round. */
  public record GetPools(ActorRef<Reply> replyTo) implements Command, CborSerializable {}

  /** The answer to {@link GetPools}; {@code report} is null until the first round is done. */
  public record Reply(PoolsReport report) implements CborSerializable {}

  private enum Tick implements Command {
    INSTANCE
  }

  private record Observed(
      Instant at,
      List<BacklogGroup> groups,
      Map<String, String> leaseKinds,
      List<ClusterAsk.Answer<RunnerPool.Command, RunnerPool.Runners>> pools,
      List<Dispatcher.Runners> dispatchers,
      boolean paused)
      implements Command {
    Observed whilePaused() {
      return new Observed(at, groups, leaseKinds, pools, dispatchers, true);
    }
  }

  private record ObserveFailed(Throwable cause) implements Command {}

  private record Applied(String node, String pool, int requested, Object reply)
      implements Command {}

  /** What a node's runner pool accepted last: the bounds it held a request to. */
  private record Bounds(Integer floor, Integer cap, Instant learnedAt) {}

  /** Starts the singleton (on the oldest node) and returns its proxy; call once per node. */
  public static ActorRef<Command> init(
      ActorSystem<?> system,
      ReadModel readModel,
      ActorRef<SystemControl.Command> systemControl,
      PoolScalerSettings settings) {
    return ClusterSingleton.get(system)
        .init(
            SingletonActor.of(
                Behaviors.supervise(create(readModel, systemControl, settings, Clock.systemUTC()))
                    .onFailure(
                        SupervisorStrategy.restartWithBackoff(
                            Duration.ofSeconds(1), Duration.ofSeconds(30), 0.2)),
                "PoolScaler"));
  }

  /**
   * @param systemControl the pause switch: while the system is paused every pool holds its count
   */
  public static Behavior<Command> create(
      ReadModel readModel,
      ActorRef<SystemControl.Command> systemControl,
      PoolScalerSettings settings,
      Clock clock) {
    return Behaviors.setup(
        context ->
            Behaviors.withTimers(
                timers ->
                    new PoolScaler(context, timers, readModel, systemControl, settings, clock)));
  }

  private final ReadModel readModel;
  private final ActorRef<SystemControl.Command> systemControl;
  private final PoolScalerSettings settings;
  private final Clock clock;
  private final ScalingPolicy policy;
  private final ClusterAsk asks;
  private final Executor blocking;
  private final RotaMetrics metrics;
  private final Map<String, ScalingPolicy.State> states = new HashMap<>();
  private final Map<String, Bounds> bounds = new HashMap<>();
  private boolean observing;
  private PoolsReport report;

  private PoolScaler(
      ActorContext<Command> context,
      TimerScheduler<Command> timers,
      ReadModel readModel,
      ActorRef<SystemControl.Command> systemControl,
      PoolScalerSettings settings,
      Clock clock) {
    super(context);
    context.setLoggerName(PoolScaler.class);
    this.readModel = readModel;
    this.systemControl = systemControl;
    this.settings = settings;
    this.clock = clock;
    this.policy = new ScalingPolicy(settings.policy());
    this.asks = new ClusterAsk(context.getSystem(), settings.askTimeout());
    this.blocking = context.getSystem().dispatchers().lookup(DispatcherSelector.blocking());
    this.metrics = RotaMetrics.get(context.getSystem());
    timers.startTimerWithFixedDelay(Tick.INSTANCE, settings.interval());
    context.getSelf().tell(Tick.INSTANCE);
    context
        .getLog()
        .info("Pool scaler started: {}", settings.pools().stream().map(PoolSpec::name).toList());
  }

  @Override
  public Receive<Command> createReceive() {
    return newReceiveBuilder()
        .onMessage(Tick.class, t -> onTick())
        .onMessage(Observed.class, this::onObserved)
        .onMessage(ObserveFailed.class, this::onObserveFailed)
        .onMessage(Applied.class, this::onApplied)
        .onMessage(GetPools.class, this::onGetPools)
        .build();
  }

  private Behavior<Command> onTick() {
    if (observing) {
      return this;
    }
    observing = true;
    Instant now = clock.instant();
    CompletableFuture<Observed> observed =
        CompletableFuture.supplyAsync(
                () -> Map.entry(readModel.backlog(now), readModel.leaseKindsByRunner()), blocking)
            .thenCombine(
                asks.askEveryNode(RunnerPool.SERVICE_KEY, RunnerPool.GetRunners::new),
                (read, pools) -> Map.entry(read, pools))
            .thenCombine(
                asks.askEveryNode(Dispatcher.SERVICE_KEY, Dispatcher.GetRunners::new),
                (readAndPools, dispatchers) ->
                    new Observed(
                        now,
                        readAndPools.getKey().getKey(),
                        readAndPools.getKey().getValue(),
                        readAndPools.getValue(),
                        dispatchers.stream().map(ClusterAsk.Answer::reply).toList(),
                        false))
            .thenCombine(paused(), (o, paused) -> paused ? o.whilePaused() : o);
    getContext()
        .pipeToSelf(observed, (o, failure) -> failure == null ? o : new ObserveFailed(failure));
    return this;
  }

  /** Whether the system is paused; not paused when the switch does not answer. */
  private CompletableFuture<Boolean> paused() {
    return AskPattern.<SystemControl.Command, SystemControl.PauseState>ask(
            systemControl,
            SystemControl.GetPaused::new,
            settings.askTimeout(),
            getContext().getSystem().scheduler())
        .thenApply(SystemControl.PauseState::paused)
        .exceptionally(failure -> false)
        .toCompletableFuture();
  }

  private Behavior<Command> onObserveFailed(ObserveFailed failed) {
    observing = false;
    getContext()
        .getLog()
        .warn("Pool scaler could not read the backlog: {}", failed.cause().toString());
    return this;
  }

  private Behavior<Command> onObserved(Observed o) {
    observing = false;
    List<RunnerPool.Runners> nodes = o.pools().stream().map(ClusterAsk.Answer::reply).toList();
    PoolCensus census =
        PoolCensus.of(
            o.at(),
            settings.pools(),
            nodes,
            o.dispatchers().stream().flatMap(d -> d.runners().stream()).toList(),
            o.leaseKinds());
    Map<String, PoolLoad> loads = Pools.loads(settings.pools(), o.groups(), census.counts());
    Duration meanActivation = metrics.meanActivationDuration();
    List<PoolsReport.Pool> pools = new ArrayList<>();
    for (PoolSpec spec : settings.pools()) {
      PoolLoad load = loads.get(spec.name());
      ScalingPolicy.State previous = states.get(spec.name());
      int currentSize = census.currentSize(spec.name());
      ScalingPolicy.Decision decision =
          o.paused()
              ? policy.hold(spec, previous, currentSize, o.at(), "system paused")
              : policy.decide(spec, load, meanActivation, previous, currentSize, o.at());
      states.put(spec.name(), decision.state());
      if (previous != null && previous.desired() != decision.desired()) {
        getContext()
            .getLog()
            .info(
                "Pool {}: {} -> {} runners: {}",
                spec.name(),
                previous.desired(),
                decision.desired(),
                decision.reason());
      }
      if (settings.configured()) {
        apply(spec, decision.desired() - census.external(spec.name()), o);
      }
      pools.add(report(spec, load, decision, census.inClusterSize(spec.name())));
    }
    report = new PoolsReport(o.at(), meanActivation, settings.targetStaleness(), pools);
    return this;
  }

  /**
   * Spreads {@code wanted} runners over the nodes that run an in-cluster pool of the spec's name
   * and tells those whose size differs.
   */
  private void apply(PoolSpec spec, long wanted, Observed o) {
    var hosting =
        o.pools().stream()
            .filter(a -> a.reply().desired().containsKey(spec.name()))
            .sorted(Comparator.comparing(a -> a.reply().node()))
            .toList();
    if (hosting.isEmpty()) {
      return;
    }
    Instant expired = o.at().minus(settings.interval().multipliedBy(6));
    bounds.values().removeIf(b -> b.learnedAt().isBefore(expired));
    Map<String, Integer> floors = new HashMap<>();
    Map<String, Integer> caps = new HashMap<>();
    List<String> names = new ArrayList<>();
    for (var a : hosting) {
      String node = a.reply().node();
      names.add(node);
      Bounds b = bounds.get(key(node, spec.name()));
      if (b != null && b.floor() != null) {
        floors.put(node, b.floor());
      }
      if (b != null && b.cap() != null) {
        caps.put(node, b.cap());
      }
    }
    Map<String, Integer> shares = Pools.spread((int) Math.max(0, wanted), names, floors, caps);
    for (var a : hosting) {
      String node = a.reply().node();
      int share = shares.get(node);
      if (share != a.reply().desired().get(spec.name())) {
        Asks.ask(
            getContext(),
            RunnerPool.SetDesiredReply.class,
            a.ref(),
            settings.askTimeout(),
            replyTo -> new RunnerPool.SetDesired(spec.name(), share, replyTo),
            (reply, failure) ->
                new Applied(node, spec.name(), share, failure == null ? reply : failure));
      }
    }
  }

  private Behavior<Command> onApplied(Applied applied) {
    String key = key(applied.node(), applied.pool());
    Instant now = clock.instant();
    if (applied.reply() instanceof RunnerPool.DesiredSet set) {
      if (set.desired() < applied.requested()) {
        bounds.put(key, new Bounds(null, set.desired(), now));
      } else if (set.desired() > applied.requested()) {
        bounds.put(key, new Bounds(set.desired(), null, now));
      } else {
        bounds.remove(key);
      }
    } else {
      getContext()
          .getLog()
          .warn(
              "Runner pool {} on {} did not take {} runners: {}",
              applied.pool(),
              applied.node(),
              applied.requested(),
              applied.reply());
    }
    return this;
  }

  private Behavior<Command> onGetPools(GetPools get) {
    get.replyTo().tell(new Reply(report));
    return this;
  }

  private static PoolsReport.Pool report(
      PoolSpec spec, PoolLoad load, ScalingPolicy.Decision decision, int inCluster) {
    return new PoolsReport.Pool(
        spec.name(),
        spec.mode().wireName(),
        List.copyOf(spec.shownCapabilities()),
        spec.min(),
        spec.max(),
        load.runners().active(),
        load.runners().busy(),
        load.runners().busyInbox(),
        decision.desired(),
        inCluster,
        decision.reason(),
        load.inboxAgents(),
        load.waiting(),
        load.oldestUnreadAt(),
        load.agents(),
        load.agentsByMinInterval(),
        load.stalestAt(),
        spec.targetStaleness());
  }

  private static String key(String node, String pool) {
    return node + "|" + pool;
  }
}
