package dev.rota.cluster.runner;

import dev.rota.cluster.CborSerializable;
import dev.rota.cluster.assign.WorkProtocol.RequestWork;
import dev.rota.cluster.runner.RunnerSettings.PoolSettings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.pekko.Done;
import org.apache.pekko.actor.Cancellable;
import org.apache.pekko.actor.CoordinatedShutdown;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.PostStop;
import org.apache.pekko.actor.typed.Props;
import org.apache.pekko.actor.typed.SupervisorStrategy;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.AskPattern;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.receptionist.Receptionist;
import org.apache.pekko.actor.typed.receptionist.ServiceKey;
import org.apache.pekko.cluster.typed.Cluster;

/**
 * The in-cluster runners of one node: one or more pools of identical {@link Runner}s, sized from
 * {@code rota.runners} and rescaled by {@link SetDesired} (the PoolScaler's lever). Sizes are
 * clamped to each pool's {@code [min, max]} and to {@code max-per-node} for the node as a whole,
 * with a warning. A runner removed by scaling down finishes its activation before it stops.
 *
 * <p>When the node leaves (CoordinatedShutdown, phase {@code before-service-unbind}) every runner
 * stops pulling work and finishes its activation or, past {@code shutdown-timeout}, fails it with
 * {@code retry}, before sharding hands the agents over. The pool registers under {@link
 * #SERVICE_KEY} so admin views can find the pools of every node.
 */
public final class RunnerPool {

  public static final ServiceKey<Command> SERVICE_KEY =
      ServiceKey.create(Command.class, "rota-runner-pool");

  // ---- protocol ----

  public sealed interface Command {}

  public record GetRunners(ActorRef<Runners> replyTo) implements Command, CborSerializable {}

  /**
   * @param runners every live runner of the node, by pool and number, draining ones included
   * @param desired the size each pool is held at
   */
  public record Runners(String node, List<RunnerStatus> runners, Map<String, Integer> desired)
      implements CborSerializable {
    public Runners {
      runners = List.copyOf(runners);
      desired = Map.copyOf(desired);
    }
  }

  /** Scale a pool to {@code count} runners, within its bounds. {@code replyTo} may be null. */
  public record SetDesired(String pool, int count, ActorRef<SetDesiredReply> replyTo)
      implements Command, CborSerializable {}

  public sealed interface SetDesiredReply extends CborSerializable {}

  /** The pool is now held at {@code desired}, which differs from {@code requested} if clamped. */
  public record DesiredSet(String pool, int requested, int desired) implements SetDesiredReply {}

  public record UnknownPool(String pool) implements SetDesiredReply {}

  /**
   * Stop all runners, letting them finish or fail (past {@code deadline}) what they hold; replies
   * once no activation is in flight. What the CoordinatedShutdown task sends.
   */
  public record Drain(Duration deadline, ActorRef<Drained> replyTo) implements Command {}

  public record Drained(int runners) {}

  private record StatusChanged(RunnerStatus status) implements Command {}

  private record RunnerDrained(String runnerId) implements Command {}

  private record RunnerStopped(String pool, int index, String runnerId) implements Command {}

  // ---- wiring ----

  /**
   * Starts this node's runners (none when {@code rota.runners.enabled = false}) under the system
   * guardian and returns the pool. Executors are created here, so a misconfigured one throws now.
   */
  public static ActorRef<Command> init(
      ActorSystem<?> system, ActorRef<RequestWork> dispatcher, RunnerSettings settings) {
    Map<String, Executor> executors =
        createExecutors(settings, ExecutorFactory.standard(system, settings));
    return system.systemActorOf(
        create(dispatcher, settings, nodeOf(system), executors), "rota-runners", Props.empty());
  }

  /** One executor per pool (none when runners are disabled). */
  public static Map<String, Executor> createExecutors(
      RunnerSettings settings, ExecutorFactory factory) {
    Map<String, Executor> executors = new LinkedHashMap<>();
    if (settings.enabled()) {
      settings.pools().forEach(pool -> executors.put(pool.name(), factory.create(pool)));
    }
    return executors;
  }

  /**
   * The pool behavior, for a guardian that spawns it itself.
   *
   * @param node this node's {@code host:port}, the prefix of every runner id
   * @param executors by pool name; a pool without one gets no runners
   */
  public static Behavior<Command> create(
      ActorRef<RequestWork> dispatcher,
      RunnerSettings settings,
      String node,
      Map<String, Executor> executors) {
    return Behaviors.setup(
        ctx -> {
          ctx.getSystem().receptionist().tell(Receptionist.register(SERVICE_KEY, ctx.getSelf()));
          Cancellable shutdownTask = registerShutdownTask(ctx, settings);
          RunnerPool pool = new RunnerPool(dispatcher, settings, node, executors, ctx);
          pool.start();
          return pool.behavior(shutdownTask);
        });
  }

  /** This node's {@code host:port} (the system name when it has no remoting). */
  public static String nodeOf(ActorSystem<?> system) {
    var address = Cluster.get(system).selfMember().address();
    if (address.getHost().isPresent() && address.getPort().isPresent()) {
      return address.getHost().get() + ":" + address.getPort().get();
    }
    return system.name();
  }

  private static Cancellable registerShutdownTask(
      ActorContext<Command> ctx, RunnerSettings settings) {
    ActorRef<Command> self = ctx.getSelf();
    ActorSystem<?> system = ctx.getSystem();
    Duration deadline = settings.shutdownTimeout();
    Duration askTimeout =
        deadline.plus(settings.askTimeout().multipliedBy(settings.reportAttempts()));
    return CoordinatedShutdown.get(system)
        .addCancellableTask(
            CoordinatedShutdown.PhaseBeforeServiceUnbind(),
            "rota-runners-drain",
            () ->
                AskPattern.<Command, Drained>ask(
                        self,
                        replyTo -> new Drain(deadline, replyTo),
                        askTimeout,
                        system.scheduler())
                    .thenApply(drained -> Done.getInstance()));
  }

  // ---- state ----

  private final ActorRef<RequestWork> dispatcher;
  private final RunnerSettings settings;
  private final String node;
  private final ActorContext<Command> ctx;
  private final Map<String, PoolRunners> pools = new LinkedHashMap<>();

  /** Runner id → its pool, for every runner not yet terminated. */
  private final Map<String, PoolRunners> live = new HashMap<>();

  private final Map<String, RunnerStatus> statuses = new HashMap<>();
  private final ActorRef<RunnerStatus> statusAdapter;

  private boolean draining;
  private final Set<String> awaitingDrain = new HashSet<>();
  private final List<ActorRef<Drained>> drainWaiters = new ArrayList<>();
  private int drainedCount;

  private RunnerPool(
      ActorRef<RequestWork> dispatcher,
      RunnerSettings settings,
      String node,
      Map<String, Executor> executors,
      ActorContext<Command> ctx) {
    this.dispatcher = dispatcher;
    this.settings = settings;
    this.node = node;
    this.ctx = ctx;
    this.statusAdapter = ctx.messageAdapter(RunnerStatus.class, StatusChanged::new);
    if (settings.enabled()) {
      for (PoolSettings pool : settings.pools()) {
        Executor executor = executors.get(pool.name());
        if (executor == null) {
          ctx.getLog().warn("Runner pool {} has no executor; it starts no runners", pool.name());
        } else {
          pools.put(pool.name(), new PoolRunners(pool, executor));
        }
      }
    }
  }

  private void start() {
    if (!settings.enabled()) {
      ctx.getLog().info("In-cluster runners disabled on {}: external runners only", node);
    }
    for (PoolRunners pool : pools.values()) {
      pool.desired = clamp(pool, pool.settings.count());
      reconcile(pool);
    }
  }

  private Behavior<Command> behavior(Cancellable shutdownTask) {
    return Behaviors.receive(Command.class)
        .onMessage(GetRunners.class, this::onGetRunners)
        .onMessage(SetDesired.class, this::onSetDesired)
        .onMessage(Drain.class, this::onDrain)
        .onMessage(StatusChanged.class, this::onStatusChanged)
        .onMessage(RunnerDrained.class, m -> onRunnerGone(m.runnerId()))
        .onMessage(RunnerStopped.class, this::onRunnerStopped)
        .onSignal(
            PostStop.class,
            stop -> {
              shutdownTask.cancel();
              return Behaviors.same();
            })
        .build();
  }

  // ---- handlers ----

  private Behavior<Command> onGetRunners(GetRunners get) {
    List<RunnerStatus> list = new ArrayList<>();
    Map<String, Integer> desired = new LinkedHashMap<>();
    for (PoolRunners pool : pools.values()) {
      desired.put(pool.settings.name(), pool.desired);
      TreeMap<Integer, String> ids = new TreeMap<>();
      pool.active.keySet().forEach(i -> ids.put(i, runnerId(pool, i)));
      pool.stopping.keySet().forEach(i -> ids.put(i, runnerId(pool, i)));
      ids.values().stream().map(statuses::get).filter(s -> s != null).forEach(list::add);
    }
    get.replyTo().tell(new Runners(node, list, desired));
    return Behaviors.same();
  }

  private Behavior<Command> onSetDesired(SetDesired set) {
    PoolRunners pool = pools.get(set.pool());
    if (pool == null) {
      if (set.replyTo() != null) {
        set.replyTo().tell(new UnknownPool(set.pool()));
      }
      return Behaviors.same();
    }
    if (draining) {
      ctx.getLog()
          .info("Ignoring SetDesired({}, {}): the node is leaving", set.pool(), set.count());
    } else {
      pool.desired = clamp(pool, set.count());
      reconcile(pool);
    }
    if (set.replyTo() != null) {
      set.replyTo().tell(new DesiredSet(set.pool(), set.count(), pool.desired));
    }
    return Behaviors.same();
  }

  private Behavior<Command> onDrain(Drain drain) {
    if (drain.replyTo() != null) {
      drainWaiters.add(drain.replyTo());
    }
    if (!draining) {
      draining = true;
      ActorRef<Runner.Drained> drained =
          ctx.messageAdapter(Runner.Drained.class, d -> new RunnerDrained(d.runnerId()));
      for (PoolRunners pool : pools.values()) {
        pool.desired = 0;
        pool.stopping.putAll(pool.active);
        pool.active.clear();
        pool.stopping.forEach(
            (i, runner) -> {
              awaitingDrain.add(runnerId(pool, i));
              runner.tell(new Runner.Drain(drain.deadline(), drained));
            });
      }
      drainedCount = awaitingDrain.size();
      ctx.getLog()
          .info(
              "Draining {} runners on {} (deadline {})",
              awaitingDrain.size(),
              node,
              drain.deadline());
    }
    replyIfDrained();
    return Behaviors.same();
  }

  private Behavior<Command> onStatusChanged(StatusChanged changed) {
    if (live.containsKey(changed.status().runnerId())) {
      statuses.put(changed.status().runnerId(), changed.status());
    }
    return Behaviors.same();
  }

  private Behavior<Command> onRunnerStopped(RunnerStopped stopped) {
    statuses.remove(stopped.runnerId());
    live.remove(stopped.runnerId());
    PoolRunners pool = pools.get(stopped.pool());
    boolean unexpected = pool.active.remove(stopped.index()) != null;
    pool.stopping.remove(stopped.index());
    if (unexpected && !draining) {
      ctx.getLog().warn("Runner {} stopped unexpectedly; replacing it", stopped.runnerId());
      reconcile(pool);
    }
    return onRunnerGone(stopped.runnerId());
  }

  private Behavior<Command> onRunnerGone(String runnerId) {
    awaitingDrain.remove(runnerId);
    replyIfDrained();
    return Behaviors.same();
  }

  // ---- sizing ----

  /** The count held within the pool's bounds and what the node's other pools leave free. */
  private int clamp(PoolRunners pool, int requested) {
    int others = pools.values().stream().filter(p -> p != pool).mapToInt(p -> p.desired).sum();
    int max = Math.min(pool.settings.max(), Math.max(0, settings.maxPerNode() - others));
    int clamped = Math.max(pool.settings.min(), Math.min(requested, max));
    if (clamped != requested) {
      ctx.getLog()
          .warn(
              "Runner pool {}: {} runners asked, {} kept (bounds {}..{}, {} per node, {} in other"
                  + " pools)",
              pool.settings.name(),
              requested,
              clamped,
              pool.settings.min(),
              pool.settings.max(),
              settings.maxPerNode(),
              others);
    }
    return clamped;
  }

  private void reconcile(PoolRunners pool) {
    while (pool.active.size() < pool.desired) {
      spawn(pool);
    }
    while (pool.active.size() > pool.desired) {
      var last = pool.active.pollLastEntry();
      pool.stopping.put(last.getKey(), last.getValue());
      last.getValue().tell(new Runner.Drain(null, null));
    }
  }

  private void spawn(PoolRunners pool) {
    int index = pool.freeIndex();
    String runnerId = runnerId(pool, index);
    PoolSettings p = pool.settings;
    Behavior<Runner.Command> runner =
        Behaviors.supervise(
                Runner.create(
                    new Runner.Identity(runnerId, node, p.name(), p.mode(), p.capabilities()),
                    settings,
                    pool.executor,
                    dispatcher,
                    statusAdapter))
            .onFailure(
                SupervisorStrategy.restartWithBackoff(
                    Duration.ofSeconds(1), Duration.ofSeconds(30), 0.2));
    ActorRef<Runner.Command> ref = ctx.spawn(runner, p.name() + "-" + index);
    ctx.watchWith(ref, new RunnerStopped(p.name(), index, runnerId));
    pool.active.put(index, ref);
    live.put(runnerId, pool);
  }

  private String runnerId(PoolRunners pool, int index) {
    return node + "/" + pool.settings.name() + "-" + index;
  }

  private void replyIfDrained() {
    if (draining && awaitingDrain.isEmpty() && !drainWaiters.isEmpty()) {
      drainWaiters.forEach(w -> w.tell(new Drained(drainedCount)));
      drainWaiters.clear();
    }
  }
}
