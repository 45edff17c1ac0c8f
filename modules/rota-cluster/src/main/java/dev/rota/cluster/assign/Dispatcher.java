package dev.rota.cluster.assign;

import dev.rota.cluster.Asks;
import dev.rota.cluster.CborSerializable;
import dev.rota.cluster.agent.AgentEntity;
import dev.rota.cluster.assign.WorkProtocol.Assigned;
import dev.rota.cluster.assign.WorkProtocol.NoWork;
import dev.rota.cluster.assign.WorkProtocol.Paused;
import dev.rota.cluster.assign.WorkProtocol.Refused;
import dev.rota.cluster.assign.WorkProtocol.RequestWork;
import dev.rota.cluster.health.RunnerBlock;
import dev.rota.cluster.health.RunnerHealth;
import dev.rota.cluster.metrics.RotaMetrics;
import dev.rota.cluster.system.SystemControl;
import dev.rota.core.model.ActivationKind;
import dev.rota.core.model.Notification;
import dev.rota.core.scheduling.HeadsBoard;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
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
 * The node-local front for runners: applies the assignment rule across all partitions from the
 * heads every coordinator publishes to it ({@link HeadsBoard}), and claims the agent it ranked
 * first from that agent directly — one message to one agent per claim, whatever the number of
 * partitions or nodes (decision 26). While a claim is in flight, and after it, the agent is hidden
 * from the board until its partition publishes a newer version of it, so concurrent requests get
 * the next-best agents rather than the same one. A request nothing fits waits here, in arrival
 * order, until a publication brings fitting work or its wait runs out. It also follows the system
 * pause switch and remembers the runners it has seen.
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

  /**
   * A partition's heads as its coordinator published them; {@code epoch} (the coordinator's start)
   * and {@code seq} order publications, so a late one from a predecessor is ignored.
   */
  public record Heads(int partition, long epoch, long seq, List<HeadsBoard.GroupHeads> groups)
      implements Command, CborSerializable {}

  public static final ServiceKey<Command> SERVICE_KEY =
      ServiceKey.create(Command.class, "rota-dispatcher");

  private record ClaimAnswered(
      long requestId, String agentId, int partition, AgentEntity.Reply reply, Throwable failure)
      implements Command {}

  private enum Tick implements Command {
    CHECK_DIRECTORY,
    FORGET,
    RECHECK_AVOIDED
  }

  /** An agent that turned {@code runnerId} away: not ranked for it before {@code untilNanos}. */
  private record Avoided(String runnerId, long untilNanos) {}

  private record WaitOver(long requestId) implements Command {}

  private record PauseChanged(SystemControl.PauseState state) implements Command {}

  private record BlocksChanged(RunnerHealth.Blocks blocks) implements Command {}

  /**
   * The node is shutting down (CoordinatedShutdown, {@code before-service-unbind}): waiting
   * requests are answered {@link NoWork} at once, and so is every request from now on, so that long
   * polls end with an answer before HTTP unbinds and runners ask another node.
   */
  private record Drain(ActorRef<Done> replyTo) implements Command {}

  private static final class Pending {
    final RequestWork request;
    final long deadlineNanos;
    long startedNanos;
    int tries;
    boolean claiming;
    boolean awaiting;
    boolean expired;

    Pending(RequestWork request, Duration settle) {
      this.request = request;
      this.startedNanos = System.nanoTime();
      Duration wait = request.maxWait() == null ? Duration.ZERO : request.maxWait();
      // Even a request that asked not to wait waits out the coordination window, so that work
      // acknowledged before it asked (a notification's 202) is published in time to be seen.
      this.deadlineNanos = startedNanos + Math.max(settle.toNanos(), wait.toNanos());
    }

    String key() {
      return request.mode() + " " + request.capabilities();
    }
  }

  /**
   * An agent this dispatcher claimed or was denied: heads of it at {@code upTo} or older are stale.
   * {@link Long#MAX_VALUE} while the claim is in flight or its outcome unknown.
   */
  private record Hidden(long upTo, long sinceNanos) {}

  /** A version of a partition's publication, to ignore one older than what the board holds. */
  private record Version(long epoch, long seq) {
    boolean isAfter(Version other) {
      return epoch != other.epoch ? epoch > other.epoch : seq > other.seq;
    }
  }

  public static Behavior<Command> create(Coordinators coordinators, CoordinatorSettings settings) {
    return Behaviors.setup(
        ctx -> Behaviors.withTimers(timers -> new Dispatcher(ctx, timers, coordinators, settings)));
  }

  /** Spawns this node's dispatcher, registered for heads and for cluster-wide runner listings. */
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

  /** The most runners a dispatcher remembers for listings (docs/configuration.md, limits). */
  public static final int MAX_REMEMBERED_RUNNERS = 10_000;

  private final TimerScheduler<Command> timers;
  private final Coordinators coordinators;
  private final CoordinatorSettings settings;
  private final ClusterSharding sharding;
  private final RotaMetrics metrics;
  private final HeadsBoard board;
  private final Map<Integer, Version> versions = new HashMap<>();
  private final Map<String, Hidden> hidden = new HashMap<>();
  private final Map<Long, Pending> pending = new HashMap<>();
  private final Map<String, Avoided> avoided = new HashMap<>();

  /** The runners that get no work, as the runner health singleton last published them. */
  private Map<String, RunnerBlock> blocks = Map.of();

  /** The most a blocked runner is told to wait before it asks again. */
  private final Duration blockedRetryAfter;

  /** Requests nothing fitted, in arrival order. */
  private final LinkedHashMap<Long, Pending> waiting = new LinkedHashMap<>();

  /** Partitions asked for their heads and not heard from since. */
  private final Set<Integer> refreshing = new HashSet<>();

  /**
   * The runners seen, least recently seen first; at most {@link #MAX_REMEMBERED_RUNNERS}, so that
   * clients inventing a runner id per request cannot grow a node's memory without bound.
   */
  private final Map<String, RunnerSeen> runners =
      new LinkedHashMap<>() {
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
    this.settings = settings;
    this.sharding = ClusterSharding.get(context.getSystem());
    this.metrics = RotaMetrics.get(context.getSystem());
    this.board = new HeadsBoard(settings.inboxMaxWait());
    this.blockedRetryAfter =
        context
            .getSystem()
            .settings()
            .config()
            .getDuration("rota.runner-health.blocked-retry-after");
    ActorRef<SystemControl.PauseState> pauseAdapter =
        context.messageAdapter(SystemControl.PauseState.class, PauseChanged::new);
    SystemControl.topic(context.getSystem()).tell(Topic.subscribe(pauseAdapter));
    ActorRef<RunnerHealth.Blocks> blocksAdapter =
        context.messageAdapter(RunnerHealth.Blocks.class, BlocksChanged::new);
    RunnerHealth.topic(context.getSystem()).tell(Topic.subscribe(blocksAdapter));
    timers.startTimerWithFixedDelay(Tick.FORGET, FORGET_HIDDEN_AFTER);
  }

  @Override
  public Receive<Command> createReceive() {
    return newReceiveBuilder()
        .onMessage(RequestWork.class, this::onRequest)
        .onMessage(Heads.class, this::onHeads)
        .onMessage(ClaimAnswered.class, this::onClaimAnswered)
        .onMessageEquals(Tick.CHECK_DIRECTORY, this::onCheckDirectory)
        .onMessageEquals(Tick.FORGET, this::onForget)
        .onMessageEquals(Tick.RECHECK_AVOIDED, this::onRecheckAvoided)
        .onMessage(WaitOver.class, this::onWaitOver)
        .onMessage(PauseChanged.class, this::onPauseChanged)
        .onMessage(BlocksChanged.class, this::onBlocksChanged)
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
    RunnerBlock block = blocks.get(request.runnerId());
    Instant now = Instant.now();
    if (block != null && block.inForce(now)) {
      request
          .replyTo()
          .tell(
              new Refused(
                  block.status().wireName(), block.retryAfterSeconds(now, blockedRetryAfter)));
      return this;
    }
    if (!directoryComplete && !checkDirectory()) {
      // Just started: wait until every partition has published, or requests would be answered
      // from a partial view of the agents.
      early.add(request);
      timers.startSingleTimer(Tick.CHECK_DIRECTORY, Tick.CHECK_DIRECTORY, DIRECTORY_POLL);
      return this;
    }
    long id = nextId++;
    Pending p = new Pending(request, settings.settle());
    pending.put(id, p);
    if (!serve(id, p)) {
      waitFor(id, p);
    }
    return this;
  }

  private Behavior<Command> onHeads(Heads heads) {
    Version version = new Version(heads.epoch(), heads.seq());
    Version known = versions.get(heads.partition());
    if (known != null && !version.isAfter(known)) {
      refreshing.remove(heads.partition()); // an answer to a refresh when nothing changed
      return this;
    }
    versions.put(heads.partition(), version);
    board.put(heads.partition(), heads.groups());
    refreshing.remove(heads.partition());
    serveWaiting();
    return this;
  }

  /**
   * Ranks the board for the request and claims the agent it ranks first. Returns false when the
   * request has to wait: nothing fits, or a partition must publish before the rule can be applied.
   */
  private boolean serve(long id, Pending p) {
    RequestWork work = p.request;
    HeadsBoard.Decision decision =
        board.decide(
            work.mode(),
            work.capabilities(),
            Instant.now(),
            head -> usable(head) && !avoids(head, work.runnerId()));
    if (decision instanceof HeadsBoard.Take take) {
      claim(id, p, take);
      return true;
    }
    p.awaiting = decision instanceof HeadsBoard.Await;
    if (decision instanceof HeadsBoard.Await await) {
      refresh(await.partition());
    }
    return false;
  }

  private boolean usable(HeadsBoard.Head head) {
    Hidden h = hidden.get(head.agent().agentId());
    return h == null || head.version() > h.upTo();
  }

  /**
   * The agent denied this runner a moment ago because it failed the agent's last attempt: rank
   * others for it until {@link #AVOID_RECHECK} has passed, then ask the agent again.
   */
  private boolean avoids(HeadsBoard.Head head, String runnerId) {
    Avoided a = avoided.get(head.agent().agentId());
    return a != null && a.runnerId().equals(runnerId) && System.nanoTime() < a.untilNanos();
  }

  private void claim(long id, Pending p, HeadsBoard.Take take) {
    RequestWork work = p.request;
    String agentId = take.pick().agent().agentId();
    hidden.put(agentId, new Hidden(Long.MAX_VALUE, System.nanoTime()));
    p.claiming = true;
    Asks.ask(
        getContext(),
        AgentEntity.Reply.class,
        sharding.entityRefFor(AgentEntity.ENTITY_TYPE_KEY, agentId),
        settings.claimTimeout(),
        replyTo ->
            new AgentEntity.Claim(
                work.runnerId(), work.mode(), work.capabilities(), work.leaseSeconds(), replyTo),
        (reply, failure) -> new ClaimAnswered(id, agentId, take.partition(), reply, failure));
  }

  private Behavior<Command> onClaimAnswered(ClaimAnswered answer) {
    Pending p = pending.get(answer.requestId());
    if (p != null) {
      p.claiming = false;
    }
    long now = System.nanoTime();
    if (answer.reply() instanceof AgentEntity.Granted granted) {
      hidden.put(answer.agentId(), new Hidden(granted.seqNr(), now));
      if (p == null) {
        giveBack(granted);
      } else {
        finish(answer.requestId(), p, new Assigned(granted));
      }
      return this;
    }
    if (answer.reply() instanceof AgentEntity.Denied denied
        && AgentEntity.AVOIDING_RUNNER.equals(denied.reason())
        && p != null) {
      // Only this runner is turned away: the agent stays visible to every other runner.
      hidden.remove(answer.agentId());
      avoided.put(
          answer.agentId(), new Avoided(p.request.runnerId(), now + AVOID_RECHECK.toNanos()));
      timers.startSingleTimer(Tick.RECHECK_AVOIDED, Tick.RECHECK_AVOIDED, AVOID_RECHECK);
    } else if (answer.reply() instanceof AgentEntity.Denied denied) {
      // Another node's runner was first, or the partition's picture was behind: the agent's own
      // answer corrects it, here and at its coordinator.
      hidden.put(answer.agentId(), new Hidden(denied.seqNr(), now));
      coordinators
          .of(answer.partition())
          .ifPresent(
              c ->
                  c.tell(
                      new Coordinator.AgentChanged(
                          denied.schedule(), denied.seqNr(), denied.registered())));
    } else {
      // No answer in time: the agent may or may not have granted. Keep it hidden until its
      // partition shows a newer version of it; a grant nobody took expires and is rescued.
      hidden.put(answer.agentId(), new Hidden(Long.MAX_VALUE, now));
    }
    if (p == null) {
      return this;
    }
    if (p.expired) {
      pending.remove(answer.requestId());
      p.request.replyTo().tell(new NoWork());
    } else if (++p.tries >= settings.claimTries() || !serve(answer.requestId(), p)) {
      waitFor(answer.requestId(), p);
    }
    return this;
  }

  /** Serves waiting requests in arrival order; one that does not fit stops its kind's turn. */
  private void serveWaiting() {
    if (waiting.isEmpty()) {
      return;
    }
    Set<String> stuck = new HashSet<>();
    for (Map.Entry<Long, Pending> e : List.copyOf(waiting.entrySet())) {
      Pending p = e.getValue();
      if (stuck.contains(p.key())) {
        continue;
      }
      p.tries = 0;
      if (serve(e.getKey(), p)) {
        waiting.remove(e.getKey());
        timers.cancel(e.getKey());
      } else {
        stuck.add(p.key());
      }
    }
  }

  private void waitFor(long id, Pending p) {
    long remaining = p.deadlineNanos - System.nanoTime();
    if (draining || (remaining <= 0 && !p.awaiting)) {
      // Out of time, or the node is shutting down: answer now rather than wait.
      pending.remove(id);
      p.request.replyTo().tell(new NoWork());
      return;
    }
    waiting.put(id, p);
    // A request out of time that waits for a partition's heads waits for them briefly.
    long wait = remaining > 0 ? remaining : AWAIT_HEADS.toNanos();
    timers.startSingleTimer(id, new WaitOver(id), Duration.ofNanos(wait));
  }

  private void refresh(int partition) {
    if (refreshing.add(partition)) {
      coordinators
          .of(partition)
          .ifPresentOrElse(
              c -> c.tell(new Coordinator.Refresh(getContext().getSelf())),
              () -> refreshing.remove(partition));
    }
  }

  private Behavior<Command> onWaitOver(WaitOver over) {
    Pending p = pending.get(over.requestId());
    if (p == null) {
      return this;
    }
    if (p.claiming) {
      p.expired = true;
      return this;
    }
    pending.remove(over.requestId());
    waiting.remove(over.requestId());
    p.request.replyTo().tell(new NoWork());
    return this;
  }

  private Behavior<Command> onCheckDirectory() {
    if (checkDirectory()) {
      List<RequestWork> held = List.copyOf(early);
      early.clear();
      held.forEach(this::onRequest);
    } else {
      timers.startSingleTimer(Tick.CHECK_DIRECTORY, Tick.CHECK_DIRECTORY, DIRECTORY_POLL);
    }
    return this;
  }

  /** True once every partition has published, or the start-up grace has passed regardless. */
  private boolean checkDirectory() {
    boolean all = true;
    for (int partition = 0; partition < coordinators.partitions() && all; partition++) {
      all = board.knows(partition);
    }
    directoryComplete = all || System.nanoTime() - startedNanos > DIRECTORY_GRACE.toNanos();
    return directoryComplete;
  }

  /** Forgets hidden agents answered long ago; a stale head of one costs at most a denial. */
  private Behavior<Command> onForget() {
    long cutoff = System.nanoTime() - FORGET_HIDDEN_AFTER.toNanos();
    hidden.values().removeIf(h -> h.sinceNanos() < cutoff);
    Instant runnersCutoff = Instant.now().minus(FORGET_RUNNERS_AFTER);
    runners.values().removeIf(r -> r.lastSeenAt().isBefore(runnersCutoff));
    return this;
  }

  /** Avoidances run out: waiting requests of the avoided runners may now be served. */
  private Behavior<Command> onRecheckAvoided() {
    long now = System.nanoTime();
    avoided.values().removeIf(a -> a.untilNanos() <= now);
    if (!avoided.isEmpty()) {
      timers.startSingleTimer(Tick.RECHECK_AVOIDED, Tick.RECHECK_AVOIDED, AVOID_RECHECK);
    }
    serveWaiting();
    return this;
  }

  /**
   * The runners that get no work changed: waiting requests of the newly blocked ones are answered
   * at once.
   */
  private Behavior<Command> onBlocksChanged(BlocksChanged changed) {
    blocks = changed.blocks().blocks();
    Instant now = Instant.now();
    for (Map.Entry<Long, Pending> e : List.copyOf(waiting.entrySet())) {
      RequestWork request = e.getValue().request;
      RunnerBlock block = blocks.get(request.runnerId());
      if (block != null && block.inForce(now)) {
        waiting.remove(e.getKey());
        pending.remove(e.getKey());
        timers.cancel(e.getKey());
        request
            .replyTo()
            .tell(
                new Refused(
                    block.status().wireName(), block.retryAfterSeconds(now, blockedRetryAfter)));
      }
    }
    return this;
  }

  private Behavior<Command> onPauseChanged(PauseChanged changed) {
    paused = changed.state().paused();
    getContext().getLog().info("System {}", paused ? "paused" : "resumed");
    if (paused) {
      answerWaiting(new Paused());
    }
    return this;
  }

  private Behavior<Command> onDrain(Drain drain) {
    draining = true;
    int answered = early.size();
    early.forEach(request -> request.replyTo().tell(new NoWork()));
    early.clear();
    answered += answerWaiting(new NoWork());
    getContext().getLog().info("Node shutting down: answered {} waiting claims 'none'", answered);
    drain.replyTo().tell(Done.getInstance());
    return this;
  }

  private int answerWaiting(WorkProtocol.WorkReply reply) {
    int answered = waiting.size();
    for (Map.Entry<Long, Pending> e : waiting.entrySet()) {
      pending.remove(e.getKey());
      timers.cancel(e.getKey());
      e.getValue().request.replyTo().tell(reply);
    }
    waiting.clear();
    return answered;
  }

  private Behavior<Command> onGetRunners(GetRunners get) {
    // Forget runners that stopped asking long ago, so listings show the live ones.
    Instant cutoff = Instant.now().minus(FORGET_RUNNERS_AFTER);
    runners.values().removeIf(r -> r.lastSeenAt().isBefore(cutoff));
    get.replyTo().tell(new Runners(List.copyOf(runners.values())));
    return this;
  }

  private void finish(long id, Pending p, Assigned assigned) {
    pending.remove(id);
    waiting.remove(id);
    timers.cancel(id);
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
    sharding
        .entityRefFor(AgentEntity.ENTITY_TYPE_KEY, ActivationJson.agentIdOf(granted.lease()))
        .tell(
            AgentEntity.Release.of(
                granted, "runner stopped waiting", getContext().getSystem().ignoreRef()));
  }

  /** How long a denial for retry avoidance keeps an agent from being ranked for its runner. */
  private static final Duration AVOID_RECHECK = Duration.ofSeconds(1);

  /** How long a request out of time still waits for a partition it must hear from. */
  private static final Duration AWAIT_HEADS = Duration.ofSeconds(1);

  private static final Duration FORGET_HIDDEN_AFTER = Duration.ofSeconds(30);
  private static final Duration FORGET_RUNNERS_AFTER = Duration.ofHours(1);
  private static final Duration DIRECTORY_POLL = Duration.ofMillis(20);
  private static final Duration DIRECTORY_GRACE = Duration.ofSeconds(30);
}
