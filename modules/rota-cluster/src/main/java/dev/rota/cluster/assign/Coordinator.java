package dev.rota.cluster.assign;

import dev.rota.cluster.Asks;
import dev.rota.cluster.CborSerializable;
import dev.rota.cluster.agent.AgentEntity;
import dev.rota.cluster.assign.WorkProtocol.Assigned;
import dev.rota.cluster.assign.WorkProtocol.NoWork;
import dev.rota.cluster.assign.WorkProtocol.RequestWork;
import dev.rota.cluster.assign.WorkProtocol.WorkReply;
import dev.rota.core.model.AgentState;
import dev.rota.core.scheduling.AgentSchedule;
import dev.rota.core.scheduling.SchedulingIndex;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.Receive;
import org.apache.pekko.actor.typed.javadsl.StashBuffer;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;
import org.apache.pekko.actor.typed.receptionist.Receptionist;
import org.apache.pekko.cluster.sharding.typed.javadsl.ClusterSharding;
import org.apache.pekko.cluster.sharding.typed.javadsl.ShardedDaemonProcess;

/**
 * Decides who runs next within one partition. Holds the partition's {@link SchedulingIndex}, fed by
 * {@link AgentChanged} pushes from the agents (newer sequence numbers win) and repaired from the
 * read model at start and periodically. A request picks a candidate, which is marked leased at once
 * so concurrent requests do not pick it too, and the agent itself decides the claim; a denial
 * carries the agent's true state, which corrects the index before the next try. Requests that find
 * nothing can be parked: the coordinator hints their dispatcher the moment a fitting agent appears.
 */
public final class Coordinator extends AbstractBehavior<Coordinator.Command> {

  /** Every message of a coordinator; those that cross nodes are also CborSerializable. */
  public sealed interface Command {}

  /** An agent changed; {@code registered} false means it was deregistered. */
  public record AgentChanged(AgentSchedule schedule, long seqNr, boolean registered)
      implements Command, CborSerializable {
    public static AgentChanged of(AgentState state, long seqNr) {
      return new AgentChanged(state.toSchedule(), seqNr, state.registered());
    }
  }

  /** Try to assign work from this partition now. */
  public record TryAssign(long requestId, RequestWork request, ActorRef<TryResult> replyTo)
      implements Command, CborSerializable {}

  /** The answer to {@link TryAssign}: {@link Assigned} or {@link NoWork}. */
  public record TryResult(long requestId, int partition, WorkReply reply)
      implements CborSerializable {}

  /** What would this partition give the request now? Answered without claiming anything. */
  public record Peek(long requestId, RequestWork request, ActorRef<PeekResult> replyTo)
      implements Command, CborSerializable {}

  /** The partition's best candidate for a {@link Peek}, or null when nothing fits. */
  public record PeekResult(long requestId, int partition, SchedulingIndex.Pick best)
      implements CborSerializable {}

  /** Remember a request that found nothing; hint its dispatcher when fitting work appears. */
  public record Park(long requestId, RequestWork request, ActorRef<Hint> dispatcher)
      implements Command, CborSerializable {}

  public record Unpark(long requestId, ActorRef<Hint> dispatcher)
      implements Command, CborSerializable {}

  /** Fitting work has appeared in this partition for the parked request. */
  public record Hint(long requestId, int partition) implements CborSerializable {}

  private record Loaded(List<PartitionLoader.Versioned> rows, Throwable failure)
      implements Command {}

  private record ClaimAnswered(
      TryAssign request,
      AgentSchedule picked,
      AgentEntity.Reply reply,
      Throwable failure,
      int triesLeft)
      implements Command {}

  private enum Tick implements Command {
    RECONCILE,
    CATCH_UP,
    CHECK_PARKED
  }

  private record ParkKey(ActorRef<Hint> dispatcher, long requestId) {}

  /** Starts the P coordinators, spread over the cluster and kept alive. */
  public static void init(
      ActorSystem<?> system, CoordinatorSettings settings, PartitionLoader loader) {
    ShardedDaemonProcess.get(system)
        .init(
            Command.class,
            "rota-coordinator",
            settings.partitions(),
            p -> create(p, settings, loader, Clock.systemUTC()));
  }

  public static Behavior<Command> create(
      int partition, CoordinatorSettings settings, PartitionLoader loader, Clock clock) {
    return Behaviors.setup(
        ctx ->
            Behaviors.withStash(
                10_000,
                stash ->
                    Behaviors.withTimers(
                        timers ->
                            new Coordinator(
                                ctx, stash, timers, partition, settings, loader, clock))));
  }

  private final StashBuffer<Command> stash;
  private final TimerScheduler<Command> timers;
  private final int partition;
  private final CoordinatorSettings settings;
  private final PartitionLoader loader;
  private final Clock clock;
  private final ClusterSharding sharding;
  private final SchedulingIndex index;
  private final Map<String, Long> versions = new HashMap<>();
  private final Map<ParkKey, Park> parked = new LinkedHashMap<>();
  private boolean loaded;
  private int catchUps;

  private Coordinator(
      ActorContext<Command> context,
      StashBuffer<Command> stash,
      TimerScheduler<Command> timers,
      int partition,
      CoordinatorSettings settings,
      PartitionLoader loader,
      Clock clock) {
    super(context);
    this.stash = stash;
    this.timers = timers;
    this.partition = partition;
    this.settings = settings;
    this.loader = loader;
    this.clock = clock;
    this.sharding = ClusterSharding.get(context.getSystem());
    this.index = new SchedulingIndex(settings.inboxMaxWait());
    context
        .getSystem()
        .receptionist()
        .tell(Receptionist.register(Coordinators.serviceKey(partition), context.getSelf()));
    reload();
    timers.startTimerWithFixedDelay(Tick.RECONCILE, settings.reconcileInterval());
    // A coordinator that takes over a partition (start, fail-over, rebalance) loads what the
    // projection has written so far; changes pushed to its predecessor meanwhile reach the read
    // model a moment later, so look again soon rather than only at the next reconciliation.
    timers.startSingleTimer(Tick.CATCH_UP, Tick.CATCH_UP, CATCH_UP_DELAYS.get(0));
  }

  @Override
  public Receive<Command> createReceive() {
    return newReceiveBuilder()
        .onMessage(AgentChanged.class, this::onAgentChanged)
        .onMessage(Loaded.class, this::onLoaded)
        .onMessage(Peek.class, this::onPeek)
        .onMessage(TryAssign.class, this::onTryAssign)
        .onMessage(ClaimAnswered.class, this::onClaimAnswered)
        .onMessage(Park.class, this::onPark)
        .onMessage(Unpark.class, this::onUnpark)
        .onMessageEquals(Tick.RECONCILE, this::onReconcile)
        .onMessageEquals(Tick.CATCH_UP, this::onCatchUp)
        .onMessageEquals(Tick.CHECK_PARKED, this::onCheckParked)
        .build();
  }

  private Behavior<Command> onAgentChanged(AgentChanged change) {
    apply(change.schedule(), change.seqNr(), change.registered());
    checkParked();
    return this;
  }

  private Behavior<Command> onLoaded(Loaded msg) {
    if (msg.failure() != null) {
      getContext()
          .getLog()
          .warn(
              "Coordinator {} could not load its partition: {}",
              partition,
              msg.failure().toString());
    } else {
      for (PartitionLoader.Versioned row : msg.rows()) {
        apply(row.schedule(), row.seqNr(), true);
      }
    }
    if (!loaded) {
      loaded = true;
      getContext().getLog().info("Coordinator {} ready with {} agents", partition, index.size());
      return stash.unstashAll(this);
    }
    checkParked();
    return this;
  }

  private Behavior<Command> onPeek(Peek peek) {
    if (!loaded) {
      stash.stash(peek);
      return this;
    }
    RequestWork work = peek.request();
    SchedulingIndex.Pick best = index.next(work.mode(), work.capabilities(), now()).orElse(null);
    peek.replyTo().tell(new PeekResult(peek.requestId(), partition, best));
    return this;
  }

  private Behavior<Command> onTryAssign(TryAssign request) {
    if (!loaded) {
      stash.stash(request);
      return this;
    }
    tryAssign(request, settings.claimTries());
    return this;
  }

  private Behavior<Command> onClaimAnswered(ClaimAnswered answer) {
    if (answer.reply() instanceof AgentEntity.Granted granted) {
      answer
          .request()
          .replyTo()
          .tell(new TryResult(answer.request().requestId(), partition, new Assigned(granted)));
      return this;
    }
    if (answer.reply() instanceof AgentEntity.Denied denied) {
      apply(denied.schedule(), denied.seqNr(), denied.registered());
    } else {
      // No answer in time: the agent may or may not have granted. Assume not; if it did, its
      // push marks it leased again, and a wrong guess is corrected by the next denial.
      index.get(answer.picked().agentId()).ifPresent(row -> index.upsert(answer.picked()));
    }
    if (answer.triesLeft() > 0) {
      tryAssign(answer.request(), answer.triesLeft() - 1);
    } else {
      answer
          .request()
          .replyTo()
          .tell(new TryResult(answer.request().requestId(), partition, new NoWork()));
    }
    return this;
  }

  private Behavior<Command> onPark(Park park) {
    if (!loaded) {
      stash.stash(park);
      return this;
    }
    parked.put(new ParkKey(park.dispatcher(), park.requestId()), park);
    checkParked();
    return this;
  }

  private Behavior<Command> onUnpark(Unpark unpark) {
    parked.remove(new ParkKey(unpark.dispatcher(), unpark.requestId()));
    return this;
  }

  private Behavior<Command> onReconcile() {
    reload();
    return this;
  }

  private Behavior<Command> onCheckParked() {
    checkParked();
    return this;
  }

  private void tryAssign(TryAssign request, int triesLeft) {
    RequestWork work = request.request();
    Optional<SchedulingIndex.Pick> pick = index.next(work.mode(), work.capabilities(), now());
    if (pick.isEmpty()) {
      request.replyTo().tell(new TryResult(request.requestId(), partition, new NoWork()));
      return;
    }
    AgentSchedule picked = pick.get().agent();
    index.markLeased(picked.agentId());
    Asks.ask(
        getContext(),
        AgentEntity.Reply.class,
        sharding.entityRefFor(AgentEntity.ENTITY_TYPE_KEY, picked.agentId()),
        settings.claimTimeout(),
        replyTo ->
            new AgentEntity.Claim(
                work.runnerId(), work.mode(), work.capabilities(), work.leaseSeconds(), replyTo),
        (reply, failure) -> new ClaimAnswered(request, picked, reply, failure, triesLeft));
  }

  private void apply(AgentSchedule schedule, long seqNr, boolean registered) {
    Long known = versions.get(schedule.agentId());
    if (known != null && known >= seqNr) {
      return;
    }
    versions.put(schedule.agentId(), seqNr);
    if (registered) {
      index.upsert(schedule);
    } else {
      index.remove(schedule.agentId());
    }
  }

  /**
   * Hints parked requests that some agent now fits. Each hinted request reserves its candidate for
   * the rest of this pass, so one free agent wakes one request, not all of them.
   */
  private void checkParked() {
    if (parked.isEmpty()) {
      return;
    }
    Instant now = now();
    List<AgentSchedule> reserved = new ArrayList<>();
    Iterator<Park> it = parked.values().iterator();
    while (it.hasNext()) {
      Park park = it.next();
      RequestWork work = park.request();
      Optional<SchedulingIndex.Pick> pick = index.next(work.mode(), work.capabilities(), now);
      if (pick.isPresent()) {
        reserved.add(pick.get().agent());
        index.markLeased(pick.get().agent().agentId());
        park.dispatcher().tell(new Hint(park.requestId(), partition));
        it.remove();
      }
    }
    reserved.forEach(index::upsert);
    if (!parked.isEmpty()) {
      index
          .nextEligibilityChange(now)
          .ifPresent(
              at ->
                  timers.startSingleTimer(
                      Tick.CHECK_PARKED,
                      Tick.CHECK_PARKED,
                      Duration.between(now, at).plusMillis(1)));
    }
  }

  private Behavior<Command> onCatchUp() {
    reload();
    if (++catchUps < CATCH_UP_DELAYS.size()) {
      timers.startSingleTimer(Tick.CATCH_UP, Tick.CATCH_UP, CATCH_UP_DELAYS.get(catchUps));
    }
    return this;
  }

  private static final List<Duration> CATCH_UP_DELAYS =
      List.of(Duration.ofSeconds(1), Duration.ofSeconds(3), Duration.ofSeconds(10));

  private void reload() {
    getContext().pipeToSelf(loader.load(partition), (rows, failure) -> new Loaded(rows, failure));
  }

  private Instant now() {
    return clock.instant();
  }
}
