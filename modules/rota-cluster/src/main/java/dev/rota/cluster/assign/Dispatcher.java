package dev.rota.cluster.assign;

import dev.rota.cluster.CborSerializable;
import dev.rota.cluster.agent.AgentEntity;
import dev.rota.cluster.assign.PendingClaims.Pending;
import dev.rota.cluster.assign.WorkProtocol.Assigned;
import dev.rota.cluster.assign.WorkProtocol.NoWork;
import dev.rota.cluster.assign.WorkProtocol.Paused;
import dev.rota.cluster.assign.WorkProtocol.Refused;
import dev.rota.cluster.assign.WorkProtocol.RequestWork;
import dev.rota.cluster.assign.WorkProtocol.WorkReply;
import dev.rota.cluster.health.RunnerHealth;
import dev.rota.cluster.system.SystemControl;
import dev.rota.cluster.tenant.TenantCapSettings;
import dev.rota.cluster.tenant.TenantSharesView;
import dev.rota.cluster.tenant.TenantTables;
import dev.rota.core.model.ClaimSpec;
import dev.rota.core.scheduling.HeadsBoard;
import dev.rota.core.tenant.AgentKeys;
import dev.rota.core.tenant.TenantLoad;
import dev.rota.core.tenant.TenantShares;
import dev.rota.core.tenant.TenantTable;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.pekko.Done;
import org.apache.pekko.actor.CoordinatedShutdown;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.Props;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.AskPattern;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.Receive;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;
import org.apache.pekko.actor.typed.pubsub.Topic;
import org.apache.pekko.actor.typed.receptionist.Receptionist;
import org.apache.pekko.actor.typed.receptionist.ServiceKey;

/**
 * The node-local front for runners: applies the assignment rule across all partitions from the
 * heads every coordinator publishes to it ({@link HeadsBoard}), and claims the agent it ranked
 * first from that agent directly — one message to one agent per claim, whatever the number of
 * partitions or nodes (decision 26). While a claim is in flight, and after it, the agent is hidden
 * from the board until its partition publishes a newer version of it, so concurrent requests get
 * the next-best agents rather than the same one. A request nothing fits waits here, in arrival
 * order, until a publication brings fitting work or its wait runs out. It also follows the system
 * pause switch and remembers the runners it has seen.
 *
 * <p>Its state is kept by purpose: {@link PartitionHeads} (the board), {@link HiddenAgents} (whom
 * not to rank), {@link PendingClaims} (claims not answered yet), {@link RunnerBlocks} and {@link
 * RunnersSeen}; its time-outs are {@link ClaimSettings}; it speaks to agents through {@link
 * AgentClaims}. Every "none" it answers is decided in {@link #none}.
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
   * and {@code seq} order publications, so a late one from a predecessor is ignored. {@code loads}:
   * each tenant's use of runners in the partition at {@code atMillis} (the coordinator's clock),
   * empty for a partition that has only ever held default-tenant agents.
   */
  public record Heads(
      int partition,
      long epoch,
      long seq,
      List<HeadsBoard.GroupHeads> groups,
      long atMillis,
      Map<String, TenantLoad> loads)
      implements Command, CborSerializable {
    public Heads {
      loads = loads == null ? Map.of() : loads;
    }

    /** Heads without tenants' loads. */
    public Heads(int partition, long epoch, long seq, List<HeadsBoard.GroupHeads> groups) {
      this(partition, epoch, seq, groups, 0, Map.of());
    }
  }

  /**
   * Each tenant's share of runner time over about the last minute, across the cluster, as this
   * node's dispatcher knows it and applies it ({@link TenantShares}).
   */
  public record GetTenantShares(ActorRef<TenantSharesView> replyTo)
      implements Command, CborSerializable {}

  public static final ServiceKey<Command> SERVICE_KEY =
      ServiceKey.create(Command.class, "rota-dispatcher");

  private record ClaimAnswered(
      long requestId, String agentId, int partition, AgentEntity.Reply reply, Throwable failure)
      implements Command {}

  private enum Tick implements Command {
    CHECK_DIRECTORY,
    FORGET,
    RECHECK_AVOIDED,
    TENANT_HOLDS
  }

  private record WaitOver(long requestId) implements Command {}

  private record PauseChanged(SystemControl.PauseState state) implements Command {}

  private record TenantsChanged(TenantTable table) implements Command {}

  private record BlocksChanged(RunnerHealth.Blocks blocks) implements Command {}

  /**
   * The node is shutting down (CoordinatedShutdown, {@code before-service-unbind}): waiting
   * requests are answered {@link NoWork} at once, and so is every request from now on, so that long
   * polls end with an answer before HTTP unbinds and runners ask another node.
   */
  private record Drain(ActorRef<Done> replyTo) implements Command {}

  public static Behavior<Command> create(
      Coordinators coordinators, CoordinatorSettings coordinator, ClaimSettings settings) {
    return Behaviors.setup(
        ctx ->
            Behaviors.withTimers(
                timers -> new Dispatcher(ctx, timers, coordinators, coordinator, settings)));
  }

  /** Spawns this node's dispatcher, registered for heads and for cluster-wide runner listings. */
  public static ActorRef<Command> init(
      ActorSystem<?> system, Coordinators coordinators, CoordinatorSettings coordinator) {
    ClaimSettings settings = ClaimSettings.from(system.settings().config());
    ActorRef<Command> ref =
        system.systemActorOf(
            create(coordinators, coordinator, settings), "rota-dispatcher", Props.empty());
    system.receptionist().tell(Receptionist.register(SERVICE_KEY, ref));
    CoordinatedShutdown.get(system)
        .addTask(
            CoordinatedShutdown.PhaseBeforeServiceUnbind(),
            "rota-dispatcher-drain",
            () ->
                AskPattern.<Command, Done>ask(
                    ref, Drain::new, settings.drainTimeout(), system.scheduler()));
    return ref;
  }

  private final TimerScheduler<Command> timers;
  private final ClaimSettings settings;
  private final AgentClaims agents;
  private final PartitionHeads heads;
  private final HiddenAgents hidden = new HiddenAgents();
  private final PendingClaims claims = new PendingClaims();
  private final RunnersSeen runners = new RunnersSeen();
  private final RunnerBlocks blocks;
  private final TenantHolds tenantHolds;

  private boolean paused;
  private boolean draining;

  private Dispatcher(
      ActorContext<Command> context,
      TimerScheduler<Command> timers,
      Coordinators coordinators,
      CoordinatorSettings coordinator,
      ClaimSettings settings) {
    super(context);
    this.timers = timers;
    this.settings = settings;
    this.blocks = new RunnerBlocks(settings.blockedRetryAfter());
    this.tenantHolds =
        new TenantHolds(TenantCapSettings.from(context.getSystem().settings().config()).hold());
    this.agents = new AgentClaims(context, coordinators, settings.agentTimeout());
    TenantTables tenantTables = TenantTables.get(context.getSystem());
    this.heads =
        new PartitionHeads(
            coordinators,
            coordinator.inboxMaxWait(),
            settings.directoryGrace(),
            tenantTables.current());
    ActorRef<Command> self = context.getSelf();
    tenantTables.subscribe(table -> self.tell(new TenantsChanged(table)));
    ActorRef<SystemControl.PauseState> pauseAdapter =
        context.messageAdapter(SystemControl.PauseState.class, PauseChanged::new);
    SystemControl.topic(context.getSystem()).tell(Topic.subscribe(pauseAdapter));
    ActorRef<RunnerHealth.Blocks> blocksAdapter =
        context.messageAdapter(RunnerHealth.Blocks.class, BlocksChanged::new);
    RunnerHealth.topic(context.getSystem()).tell(Topic.subscribe(blocksAdapter));
    timers.startTimerWithFixedDelay(Tick.FORGET, settings.forgetHiddenAfter());
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
        .onMessageEquals(Tick.TENANT_HOLDS, this::onTenantHoldsOver)
        .onMessage(WaitOver.class, this::onWaitOver)
        .onMessage(PauseChanged.class, this::onPauseChanged)
        .onMessage(BlocksChanged.class, this::onBlocksChanged)
        .onMessage(GetRunners.class, this::onGetRunners)
        .onMessage(GetTenantShares.class, this::onGetTenantShares)
        .onMessage(TenantsChanged.class, this::onTenantsChanged)
        .onMessage(Drain.class, this::onDrain)
        .build();
  }

  private Behavior<Command> onRequest(RequestWork request) {
    runners.seen(request, Instant.now());
    if (draining) {
      none(request);
      return this;
    }
    if (paused) {
      request.replyTo().tell(new Paused());
      return this;
    }
    Refused refused = blocks.refusal(request.spec().runnerId(), Instant.now());
    if (refused != null) {
      request.replyTo().tell(refused);
      return this;
    }
    if (!heads.complete()) {
      // Just started: wait until every partition has published, or requests would be answered
      // from a partial view of the agents.
      claims.holdEarly(request);
      timers.startSingleTimer(Tick.CHECK_DIRECTORY, Tick.CHECK_DIRECTORY, settings.directoryPoll());
      return this;
    }
    Pending p = claims.add(request, settings.settle());
    if (!serve(p)) {
      waitFor(p);
    }
    return this;
  }

  private Behavior<Command> onHeads(Heads published) {
    if (heads.accept(published)) {
      serveWaiting();
    }
    return this;
  }

  /**
   * Ranks the board for the request and claims the agent it ranks first. Returns false when the
   * request has to wait: nothing fits, or a partition must publish before the rule can be applied.
   */
  private boolean serve(Pending p) {
    ClaimSpec work = p.request.spec();
    long nowNanos = System.nanoTime();
    HeadsBoard.Decision decision =
        heads.decide(
            work.mode(),
            work.capabilities(),
            Instant.now(),
            head ->
                hidden.usable(head, work.runnerId(), nowNanos)
                    && tenantHolds.usable(head.agent().agentId(), nowNanos),
            work.tenants().isEmpty() ? null : work::serves);
    if (decision instanceof HeadsBoard.Take take) {
      claim(p, take);
      return true;
    }
    p.awaiting = decision instanceof HeadsBoard.Await;
    if (decision instanceof HeadsBoard.Await await) {
      heads.refresh(await.partition(), getContext().getSelf());
    }
    return false;
  }

  private void claim(Pending p, HeadsBoard.Take take) {
    String agentId = take.pick().agent().agentId();
    hidden.hideUntilNewer(agentId, System.nanoTime());
    p.claiming = true;
    agents.ask(
        p,
        agentId,
        (reply, failure) -> new ClaimAnswered(p.id, agentId, take.partition(), reply, failure));
  }

  private Behavior<Command> onClaimAnswered(ClaimAnswered answer) {
    Pending p = claims.get(answer.requestId());
    if (p != null) {
      p.claiming = false;
    }
    long now = System.nanoTime();
    if (answer.reply() instanceof AgentEntity.Granted granted) {
      hidden.hide(answer.agentId(), granted.seqNr(), now);
      heads.granted(answer.partition(), AgentKeys.tenantOf(answer.agentId()));
      if (p == null) {
        agents.giveBack(granted);
      } else {
        agents.count(p, granted);
        answer(p, new Assigned(granted));
      }
      return this;
    }
    if (answer.reply() instanceof AgentEntity.Denied denied && denied.byTenant()) {
      // The agent is as eligible as before; its tenant is not now: rank other tenants meanwhile.
      hidden.show(answer.agentId());
      tenantHolds.hold(answer.agentId(), denied, Instant.now(), now);
      timers.startSingleTimer(Tick.TENANT_HOLDS, Tick.TENANT_HOLDS, tenantHolds.forgetEnded(now));
    } else if (answer.reply() instanceof AgentEntity.Denied denied
        && AgentEntity.AVOIDING_RUNNER.equals(denied.reason())
        && p != null) {
      // Only this runner is turned away: the agent stays visible to every other runner.
      hidden.avoid(
          answer.agentId(), p.request.spec().runnerId(), now + settings.avoidRecheck().toNanos());
      timers.startSingleTimer(Tick.RECHECK_AVOIDED, Tick.RECHECK_AVOIDED, settings.avoidRecheck());
    } else if (answer.reply() instanceof AgentEntity.Denied denied) {
      // Another node's runner was first, or the partition's picture was behind: the agent's own
      // answer corrects it, here and at its coordinator.
      hidden.hide(answer.agentId(), denied.seqNr(), now);
      agents.correct(answer.partition(), denied);
    } else {
      // No answer in time: the agent may or may not have granted. Keep it hidden until its
      // partition shows a newer version of it; a grant nobody took expires and is rescued.
      hidden.hideUntilNewer(answer.agentId(), now);
    }
    if (p == null) {
      return this;
    }
    if (p.expired) {
      none(p);
    } else if (++p.tries >= settings.agentTries() || !serve(p)) {
      waitFor(p);
    }
    return this;
  }

  /** Serves waiting requests in arrival order; one that does not fit stops its kind's turn. */
  private void serveWaiting() {
    Set<String> stuck = new HashSet<>();
    for (Pending p : claims.waiting()) {
      if (stuck.contains(p.kind())) {
        continue;
      }
      p.tries = 0;
      if (serve(p)) {
        claims.unpark(p);
        timers.cancel(p.id);
      } else {
        stuck.add(p.kind());
      }
    }
  }

  private void waitFor(Pending p) {
    long remaining = p.deadlineNanos - System.nanoTime();
    if (draining || (remaining <= 0 && !p.awaiting)) {
      none(p);
      return;
    }
    claims.park(p);
    // A request out of time that waits for a partition's heads waits for them briefly.
    Duration wait = remaining > 0 ? Duration.ofNanos(remaining) : settings.awaitHeads();
    timers.startSingleTimer(p.id, new WaitOver(p.id), wait);
  }

  private Behavior<Command> onWaitOver(WaitOver over) {
    Pending p = claims.get(over.requestId());
    if (p == null) {
      return this;
    }
    if (p.claiming) {
      p.expired = true;
      return this;
    }
    none(p);
    return this;
  }

  private Behavior<Command> onCheckDirectory() {
    if (heads.complete()) {
      claims.takeEarly().forEach(this::onRequest);
    } else {
      timers.startSingleTimer(Tick.CHECK_DIRECTORY, Tick.CHECK_DIRECTORY, settings.directoryPoll());
    }
    return this;
  }

  /** Forgets hidden agents answered long ago, and runners that stopped asking long ago. */
  private Behavior<Command> onForget() {
    hidden.forgetHiddenBefore(System.nanoTime() - settings.forgetHiddenAfter().toNanos());
    runners.forget(Instant.now().minus(settings.forgetRunnersAfter()));
    return this;
  }

  /** Avoidances run out: waiting requests of the avoided runners may now be served. */
  private Behavior<Command> onRecheckAvoided() {
    if (hidden.forgetAvoidedBy(System.nanoTime())) {
      timers.startSingleTimer(Tick.RECHECK_AVOIDED, Tick.RECHECK_AVOIDED, settings.avoidRecheck());
    }
    serveWaiting();
    return this;
  }

  /** A tenant's hold ended: waiting requests may be served its agents. */
  private Behavior<Command> onTenantHoldsOver() {
    Duration next = tenantHolds.forgetEnded(System.nanoTime());
    if (next != null) {
      timers.startSingleTimer(Tick.TENANT_HOLDS, Tick.TENANT_HOLDS, next);
    }
    serveWaiting();
    return this;
  }

  /**
   * The runners that get no work changed: waiting requests of the newly blocked ones are answered
   * at once.
   */
  private Behavior<Command> onBlocksChanged(BlocksChanged changed) {
    blocks.update(changed.blocks());
    Instant now = Instant.now();
    for (Pending p : claims.waiting()) {
      Refused refused = blocks.refusal(p.request.spec().runnerId(), now);
      if (refused != null) {
        answer(p, refused);
      }
    }
    return this;
  }

  private Behavior<Command> onPauseChanged(PauseChanged changed) {
    paused = changed.state().paused();
    getContext().getLog().info("System {}", paused ? "paused" : "resumed");
    if (paused) {
      claims.waiting().forEach(p -> answer(p, new Paused()));
    }
    return this;
  }

  private Behavior<Command> onDrain(Drain drain) {
    draining = true;
    List<RequestWork> early = claims.takeEarly();
    early.forEach(this::none);
    List<Pending> waiting = claims.waiting();
    waiting.forEach(this::none);
    getContext()
        .getLog()
        .info(
            "Node shutting down: answered {} waiting claims 'none'", early.size() + waiting.size());
    drain.replyTo().tell(Done.getInstance());
    return this;
  }

  private Behavior<Command> onGetRunners(GetRunners get) {
    // Forget runners that stopped asking long ago, so listings show the live ones.
    runners.forget(Instant.now().minus(settings.forgetRunnersAfter()));
    get.replyTo().tell(new Runners(runners.list()));
    return this;
  }

  private Behavior<Command> onGetTenantShares(GetTenantShares get) {
    get.replyTo().tell(TenantSharesView.of(heads.shares(System.currentTimeMillis())));
    return this;
  }

  private Behavior<Command> onTenantsChanged(TenantsChanged changed) {
    heads.shares().table(changed.table());
    return this;
  }

  /**
   * Every "none" of this node is decided here: the claim's wait ran out with nothing fitting (also
   * while an agent was being asked for it), or the node is shutting down. A route that has heard
   * nothing by the wait plus its margin answers "none" itself ({@link ExternalClaim}).
   */
  private void none(Pending p) {
    answer(p, new NoWork());
  }

  /** {@link #none(Pending)} for a request that was never numbered: the node is shutting down. */
  private void none(RequestWork request) {
    request.replyTo().tell(new NoWork());
  }

  private void answer(Pending p, WorkReply reply) {
    claims.remove(p);
    timers.cancel(p.id);
    p.request.replyTo().tell(reply);
  }
}
