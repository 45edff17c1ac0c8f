package dev.rota.cluster.assign;

import dev.rota.cluster.CborSerializable;
import dev.rota.cluster.agent.AgentEntity;
import dev.rota.cluster.assign.Coordinator.Hint;
import dev.rota.cluster.assign.Coordinator.TryResult;
import dev.rota.cluster.assign.WorkProtocol.Assigned;
import dev.rota.cluster.assign.WorkProtocol.NoWork;
import dev.rota.cluster.assign.WorkProtocol.Paused;
import dev.rota.cluster.assign.WorkProtocol.RequestWork;
import dev.rota.cluster.metrics.RotaMetrics;
import dev.rota.cluster.system.SystemControl;
import dev.rota.core.model.ActivationKind;
import dev.rota.core.model.FailureAction;
import dev.rota.core.model.Notification;
import dev.rota.core.model.Partitions;
import dev.rota.core.scheduling.PickOrder;
import dev.rota.core.scheduling.SchedulingIndex;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.pekko.Done;
import org.apache.pekko.actor.CoordinatedShutdown;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.AskPattern;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.Receive;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;
import org.apache.pekko.actor.typed.pubsub.Topic;
import org.apache.pekko.actor.typed.receptionist.Receptionist;
import org.apache.pekko.actor.typed.receptionist.ServiceKey;
import org.apache.pekko.cluster.sharding.typed.javadsl.ClusterSharding;

/**
 * The node-local front for runners: peeks every partition's coordinator for its best candidate,
 * ranks the candidates by the rule (the runner's home partition wins ties) and claims from the
 * first; when all are empty it parks the request at every partition until one hints that fitting
 * work appeared (then ranks all again) or the wait runs out. It also follows the system pause
 * switch and remembers the runners it has seen.
 */
public final class Dispatcher extends AbstractBehavior<Dispatcher.Command> {

  /** Messages of the dispatcher; {@link RequestWork} is the public one. */
  public interface Command {}

  /** The runners this dispatcher has seen. */
  public record GetRunners(ActorRef<Runners> replyTo) implements Command, CborSerializable {}

  public record Runners(List<RunnerSeen> runners) implements CborSerializable {}

  /** A runner as last seen asking for work; {@code node} null for an external runner. */
  public record RunnerSeen(
      String runnerId, String node, String mode, Set<String> capabilities, Instant lastSeenAt)
      implements CborSerializable {}

  public static final ServiceKey<Command> SERVICE_KEY =
      ServiceKey.create(Command.class, "rota-dispatcher");

  private record Tried(TryResult result) implements Command {}

  private record Peeked(Coordinator.PeekResult result) implements Command {}

  private record PeekTimeout(long requestId) implements Command {}

  private enum CheckDirectory implements Command {
    INSTANCE
  }

  private record Hinted(Hint hint) implements Command {}

  private record WaitOver(long requestId) implements Command {}

  private record PauseChanged(SystemControl.PauseState state) implements Command {}

  /**
   * The node is shutting down (CoordinatedShutdown, {@code before-service-unbind}): parked requests
   * are answered {@link NoWork} at once, and so is every request from now on, so that long polls
   * end with an answer before HTTP unbinds and runners ask another node.
   */
  private record Drain(ActorRef<Done> replyTo) implements Command {}

  private static final class Pending {
    final RequestWork request;
    final List<SchedulingIndex.Pick> peeked = new ArrayList<>();
    final List<Integer> peekedPartitions = new ArrayList<>();
    int peeksOutstanding;
    List<Integer> order = List.of();
    int position;
    boolean parked;
    int retries;
    long startedNanos;
    final long deadlineNanos;

    Pending(RequestWork request) {
      this.request = request;
      this.startedNanos = System.nanoTime();
      Duration wait = request.maxWait() == null ? Duration.ZERO : request.maxWait();
      this.deadlineNanos = startedNanos + Math.max(0, wait.toNanos());
    }
  }

  public static Behavior<Command> create(Coordinators coordinators, CoordinatorSettings settings) {
    return Behaviors.setup(
        ctx -> Behaviors.withTimers(timers -> new Dispatcher(ctx, timers, coordinators, settings)));
  }

  /** Spawns this node's dispatcher, registered for cluster-wide runner listings. */
  public static ActorRef<Command> init(
      ActorSystem<?> system, Coordinators coordinators, CoordinatorSettings settings) {
    ActorRef<Command> ref =
        system.systemActorOf(
            create(coordinators, settings),
            "rota-dispatcher",
            org.apache.pekko.actor.typed.Props.empty());
    system.receptionist().tell(Receptionist.register(SERVICE_KEY, ref));
    CoordinatedShutdown.get(system)
        .addTask(
            CoordinatedShutdown.PhaseBeforeServiceUnbind(),
            "rota-dispatcher-drain",
            () ->
                AskPattern.<Command, Done>ask(
                    ref, Drain::new, Duration.ofSeconds(5), system.scheduler()));
    return ref;
  }

  private final TimerScheduler<Command> timers;
  private final Coordinators coordinators;

  /** The most runners a dispatcher remembers for listings (docs/configuration.md, limits). */
  public static final int MAX_REMEMBERED_RUNNERS = 10_000;

  private final ClusterSharding sharding;
  private final RotaMetrics metrics;
  private final ActorRef<TryResult> tryAdapter;
  private final ActorRef<Coordinator.PeekResult> peekAdapter;
  private final CoordinatorSettings settings;
  private final ActorRef<Hint> hintAdapter;
  private final Map<Long, Pending> pending = new HashMap<>();

  /**
   * The runners seen, least recently seen first; at most {@link #MAX_REMEMBERED_RUNNERS}, so that
   * clients inventing a runner id per request cannot grow a node's memory without bound.
   */
  private final Map<String, RunnerSeen> runners =
      new java.util.LinkedHashMap<>() {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, RunnerSeen> eldest) {
          return size() > MAX_REMEMBERED_RUNNERS;
        }
      };

  private final List<RequestWork> early = new ArrayList<>();
  private final long startedNanos = System.nanoTime();
  private boolean directoryComplete;
  private long nextId;
  private boolean paused;
  private boolean draining;

  private Dispatcher(
      ActorContext<Command> context,
      TimerScheduler<Command> timers,
      Coordinators coordinators,
      CoordinatorSettings settings) {
    super(context);
    this.timers = timers;
    this.coordinators = coordinators;
    this.sharding = ClusterSharding.get(context.getSystem());
    this.metrics = RotaMetrics.get(context.getSystem());
    this.tryAdapter = context.messageAdapter(TryResult.class, Tried::new);
    this.peekAdapter = context.messageAdapter(Coordinator.PeekResult.class, Peeked::new);
    this.settings = settings;
    this.hintAdapter = context.messageAdapter(Hint.class, Hinted::new);
    ActorRef<SystemControl.PauseState> pauseAdapter =
        context.messageAdapter(SystemControl.PauseState.class, PauseChanged::new);
    SystemControl.topic(context.getSystem()).tell(Topic.subscribe(pauseAdapter));
  }

  @Override
  public Receive<Command> createReceive() {
    return newReceiveBuilder()
        .onMessage(RequestWork.class, this::onRequest)
        .onMessageEquals(CheckDirectory.INSTANCE, this::onCheckDirectory)
        .onMessage(Peeked.class, this::onPeeked)
        .onMessage(PeekTimeout.class, this::onPeekTimeout)
        .onMessage(Tried.class, this::onTried)
        .onMessage(Hinted.class, this::onHinted)
        .onMessage(WaitOver.class, this::onWaitOver)
        .onMessage(PauseChanged.class, this::onPauseChanged)
        .onMessage(GetRunners.class, this::onGetRunners)
        .onMessage(Drain.class, this::onDrain)
        .build();
  }

  private Behavior<Command> onRequest(RequestWork request) {
    runners.remove(request.runnerId());
    runners.put(
        request.runnerId(),
        new RunnerSeen(
            request.runnerId(),
            request.node(),
            request.mode().wireName(),
            request.capabilities(),
            Instant.now()));
    if (draining) {
      request.replyTo().tell(new NoWork());
      return this;
    }
    if (paused) {
      request.replyTo().tell(new Paused());
      return this;
    }
    if (!directoryComplete && !checkDirectory()) {
      // Just started: wait until every partition's coordinator is known, or requests would be
      // answered from a partial view of the agents.
      early.add(request);
      timers.startSingleTimer(CheckDirectory.INSTANCE, CheckDirectory.INSTANCE, DIRECTORY_POLL);
      return this;
    }
    long id = nextId++;
    Pending p = new Pending(request);
    pending.put(id, p);
    peekAll(id, p);
    return this;
  }

  /**
   * Asks every partition for its best candidate at once, so the rule holds across partitions: the
   * request then claims from the partition whose candidate the rule ranks first.
   */
  private void peekAll(long id, Pending p) {
    p.peeked.clear();
    p.peekedPartitions.clear();
    p.peeksOutstanding = 0;
    for (int partition = 0; partition < coordinators.partitions(); partition++) {
      var coordinator = coordinators.of(partition);
      if (coordinator.isPresent()) {
        coordinator.get().tell(new Coordinator.Peek(id, p.request, peekAdapter));
        p.peeksOutstanding++;
      }
    }
    if (p.peeksOutstanding == 0) {
      rankAndTry(id, p);
    } else {
      timers.startSingleTimer(peekTimerKey(id), new PeekTimeout(id), PEEK_TIMEOUT);
    }
  }

  private Behavior<Command> onCheckDirectory() {
    if (checkDirectory()) {
      List<RequestWork> waiting = List.copyOf(early);
      early.clear();
      waiting.forEach(this::onRequest);
    } else {
      timers.startSingleTimer(CheckDirectory.INSTANCE, CheckDirectory.INSTANCE, DIRECTORY_POLL);
    }
    return this;
  }

  /** True once all coordinators are known, or the start-up grace has passed regardless. */
  private boolean checkDirectory() {
    directoryComplete =
        coordinators.allKnown() || System.nanoTime() - startedNanos > DIRECTORY_GRACE.toNanos();
    return directoryComplete;
  }

  private Behavior<Command> onPeeked(Peeked peeked) {
    Coordinator.PeekResult result = peeked.result();
    Pending p = pending.get(result.requestId());
    if (p == null || p.peeksOutstanding == 0) {
      return this;
    }
    if (result.best() != null) {
      p.peeked.add(result.best());
      p.peekedPartitions.add(result.partition());
    }
    if (--p.peeksOutstanding == 0) {
      timers.cancel(peekTimerKey(result.requestId()));
      rankAndTry(result.requestId(), p);
    }
    return this;
  }

  private Behavior<Command> onPeekTimeout(PeekTimeout timeout) {
    Pending p = pending.get(timeout.requestId());
    if (p != null && p.peeksOutstanding > 0) {
      p.peeksOutstanding = 0;
      rankAndTry(timeout.requestId(), p);
    }
    return this;
  }

  private void rankAndTry(long id, Pending p) {
    Comparator<SchedulingIndex.Pick> rule = PickOrder.at(Instant.now(), settings.inboxMaxWait());
    List<Integer> idx = new ArrayList<>();
    for (int i = 0; i < p.peeked.size(); i++) {
      idx.add(i);
    }
    // The home partition wins ties, so runners keep to their partition when the rule allows.
    int home = Partitions.of(p.request.runnerId(), coordinators.partitions());
    idx.sort(
        (x, y) -> {
          int c = rule.compare(p.peeked.get(x), p.peeked.get(y));
          if (c != 0) {
            return c;
          }
          return Boolean.compare(
              p.peekedPartitions.get(y) == home, p.peekedPartitions.get(x) == home);
        });
    List<Integer> order = new ArrayList<>(idx.size());
    idx.forEach(i -> order.add(p.peekedPartitions.get(i)));
    p.order = order;
    p.position = 0;
    tryNext(id, p);
  }

  private static String peekTimerKey(long id) {
    return "peek-" + id;
  }

  private Behavior<Command> onTried(Tried tried) {
    TryResult result = tried.result();
    Pending p = pending.get(result.requestId());
    if (result.reply() instanceof Assigned assigned) {
      if (p == null) {
        giveBack(assigned.granted());
        return this;
      }
      finish(result.requestId(), p, assigned);
      return this;
    }
    if (p == null) {
      return this;
    }
    if (p.position + 1 < p.order.size()) {
      p.position++;
      tryNext(result.requestId(), p);
    } else {
      // Every candidate went to someone else meanwhile: look again before parking.
      if (p.retries++ < 2) {
        peekAll(result.requestId(), p);
      } else {
        p.position = p.order.size();
        tryNext(result.requestId(), p);
      }
    }
    return this;
  }

  private Behavior<Command> onHinted(Hinted hinted) {
    Hint hint = hinted.hint();
    Pending p = pending.get(hint.requestId());
    if (p == null || !p.parked) {
      return this;
    }
    p.startedNanos = System.nanoTime();
    // Woken: rank all partitions again, the hinting one among them.
    p.parked = false;
    unparkEverywhere(hint.requestId());
    timers.cancel(hint.requestId());
    p.retries = 0;
    peekAll(hint.requestId(), p);
    return this;
  }

  private Behavior<Command> onWaitOver(WaitOver over) {
    Pending p = pending.remove(over.requestId());
    if (p != null) {
      unparkEverywhere(over.requestId());
      p.request.replyTo().tell(new NoWork());
    }
    return this;
  }

  private Behavior<Command> onPauseChanged(PauseChanged changed) {
    paused = changed.state().paused();
    getContext().getLog().info("System {}", paused ? "paused" : "resumed");
    if (paused) {
      for (Map.Entry<Long, Pending> e : List.copyOf(pending.entrySet())) {
        if (e.getValue().parked) {
          pending.remove(e.getKey());
          timers.cancel(e.getKey());
          unparkEverywhere(e.getKey());
          e.getValue().request.replyTo().tell(new Paused());
        }
      }
    }
    return this;
  }

  private Behavior<Command> onDrain(Drain drain) {
    draining = true;
    int answered = early.size();
    early.forEach(request -> request.replyTo().tell(new NoWork()));
    early.clear();
    for (Map.Entry<Long, Pending> e : List.copyOf(pending.entrySet())) {
      if (e.getValue().parked) {
        pending.remove(e.getKey());
        timers.cancel(e.getKey());
        unparkEverywhere(e.getKey());
        e.getValue().request.replyTo().tell(new NoWork());
        answered++;
      }
    }
    getContext().getLog().info("Node shutting down: answered {} waiting claims 'none'", answered);
    drain.replyTo().tell(Done.getInstance());
    return this;
  }

  private Behavior<Command> onGetRunners(GetRunners get) {
    // Forget runners that stopped asking long ago, so listings show the live ones.
    Instant cutoff = Instant.now().minus(FORGET_RUNNERS_AFTER);
    runners.values().removeIf(r -> r.lastSeenAt().isBefore(cutoff));
    get.replyTo().tell(new Runners(List.copyOf(runners.values())));
    return this;
  }

  private void tryNext(long id, Pending p) {
    while (p.position < p.order.size()) {
      var coordinator = coordinators.of(p.order.get(p.position));
      if (coordinator.isPresent()) {
        coordinator.get().tell(new Coordinator.TryAssign(id, p.request, tryAdapter));
        return;
      }
      p.position++;
    }
    long remaining = p.deadlineNanos - System.nanoTime();
    if (remaining <= 0 || draining) {
      // Out of time, or the node is shutting down: answer now rather than park.
      pending.remove(id);
      p.request.replyTo().tell(new NoWork());
      return;
    }
    p.parked = true;
    for (int partition = 0; partition < coordinators.partitions(); partition++) {
      coordinators
          .of(partition)
          .ifPresent(c -> c.tell(new Coordinator.Park(id, p.request, hintAdapter)));
    }
    timers.startSingleTimer(id, new WaitOver(id), Duration.ofNanos(remaining));
  }

  private void finish(long id, Pending p, Assigned assigned) {
    pending.remove(id);
    if (p.parked) {
      timers.cancel(id);
      unparkEverywhere(id);
    }
    AgentEntity.Granted granted = assigned.granted();
    Duration claim = Duration.ofNanos(System.nanoTime() - p.startedNanos);
    Duration wait =
        granted.lease().kind() == ActivationKind.INBOX
            ? granted.notifications().stream()
                .map(Notification::receivedAt)
                .min(Instant::compareTo)
                .map(oldest -> Duration.between(oldest, granted.lease().grantedAt()))
                .orElse(null)
            : null;
    metrics.assigned(granted.lease().kind(), claim, wait);
    p.request.replyTo().tell(assigned);
  }

  /** A lease granted for a request that already gave up: hand the agent back unchanged. */
  private void giveBack(AgentEntity.Granted granted) {
    String leaseId = granted.lease().leaseId();
    sharding
        .entityRefFor(AgentEntity.ENTITY_TYPE_KEY, ActivationJson.agentIdOf(granted.lease()))
        .tell(
            new AgentEntity.Fail(
                leaseId,
                FailureAction.SNOOZE,
                "runner stopped waiting",
                0,
                getContext().getSystem().ignoreRef()));
  }

  private void unparkEverywhere(long id) {
    for (int partition = 0; partition < coordinators.partitions(); partition++) {
      coordinators.of(partition).ifPresent(c -> c.tell(new Coordinator.Unpark(id, hintAdapter)));
    }
  }

  private static final Duration PEEK_TIMEOUT = Duration.ofSeconds(2);
  private static final Duration FORGET_RUNNERS_AFTER = Duration.ofHours(1);
  private static final Duration DIRECTORY_POLL = Duration.ofMillis(20);
  private static final Duration DIRECTORY_GRACE = Duration.ofSeconds(30);
}
