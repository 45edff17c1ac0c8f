package dev.rota.cluster.assign;

import dev.rota.cluster.CborSerializable;
import dev.rota.core.model.AgentState;
import dev.rota.core.scheduling.AgentSchedule;
import dev.rota.core.scheduling.HeadsBoard;
import dev.rota.core.scheduling.SchedulingIndex;
import dev.rota.core.tenant.TenantRunnerTime;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.SupervisorStrategy;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.Receive;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;
import org.apache.pekko.actor.typed.receptionist.Receptionist;
import org.apache.pekko.cluster.sharding.typed.javadsl.ShardedDaemonProcess;

/**
 * Keeps one partition's {@link SchedulingIndex} and publishes its heads — the first agents of each
 * ordered view per capability group — to every node's {@link Dispatcher}, which ranks all
 * partitions' heads and claims the best agent from the agent itself (decision 26). The index is fed
 * by {@link AgentChanged} pushes from the agents (newer sequence numbers win) and repaired from the
 * read model at start and periodically. A coordinator is not on a claim's path: it publishes after
 * a batch of changes (at most once per turn through its mailbox), when time makes an agent
 * eligible, to a dispatcher that appears, and to one that asks.
 */
public final class Coordinator extends AbstractBehavior<Coordinator.Command> {

  /** Every message of a coordinator; those that cross nodes are also CborSerializable. */
  public sealed interface Command {}

  /** An agent changed; {@code registered} false means it was deregistered. */
  public record AgentChanged(AgentSchedule schedule, long seqNr, boolean registered)
      implements Command, CborSerializable {
    public static AgentChanged of(AgentState state, long seqNr) {
      return new AgentChanged(AgentSchedule.of(state), seqNr, state.registered());
    }
  }

  /** A dispatcher needs this partition's current heads (it has claimed all it was shown). */
  public record Refresh(ActorRef<Dispatcher.Command> dispatcher)
      implements Command, CborSerializable {}

  /** A load's rows from {@code from} on (a large load is applied in chunks). */
  private record Loaded(List<PartitionLoader.Versioned> rows, Throwable failure, int from)
      implements Command {}

  /**
   * Rows of a load applied per message. A million agents' loads, applied whole, kept every thread
   * of the default dispatcher busy for seconds, so the node's HTTP bind and health checks waited
   * for them; between chunks other actors run (pushes meanwhile are safe: rows are versioned).
   */
  static final int LOAD_CHUNK = 5_000;

  private record DispatchersListed(Set<ActorRef<Dispatcher.Command>> dispatchers)
      implements Command {}

  private enum Tick implements Command {
    RECONCILE,
    CATCH_UP,
    PUBLISH
  }

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
    // One agent's data must not take a partition down: a message whose handling throws is logged
    // and dropped, and the coordinator goes on with its index (reconciliation repairs what the
    // message would have changed) instead of restarting and reloading its whole partition.
    Behavior<Command> coordinator =
        Behaviors.setup(
            ctx ->
                Behaviors.withTimers(
                    timers -> new Coordinator(ctx, timers, partition, settings, loader, clock)));
    return Behaviors.supervise(coordinator)
        .onFailure(RuntimeException.class, SupervisorStrategy.resume());
  }

  private final TimerScheduler<Command> timers;
  private final int partition;
  private final CoordinatorSettings settings;
  private final PartitionLoader loader;
  private final Clock clock;
  private final SchedulingIndex index;
  private final Map<String, Long> versions = new HashMap<>();

  /**
   * The runner time each tenant's agents take, published with the heads for the rule across
   * tenants.
   */
  private final TenantRunnerTime usage = new TenantRunnerTime();

  private long publishedUsage = -1;

  /** One instance, so that the index's groups can reuse heads computed with it. */
  private final java.util.function.ToLongFunction<String> versionOf =
      id -> versions.getOrDefault(id, 0L);

  private final long epoch = System.currentTimeMillis();
  private Set<ActorRef<Dispatcher.Command>> dispatchers = Set.of();
  private List<HeadsBoard.GroupHeads> published;
  private long seq;
  private boolean publishQueued;
  private boolean loaded;
  private int catchUps;

  private Coordinator(
      ActorContext<Command> context,
      TimerScheduler<Command> timers,
      int partition,
      CoordinatorSettings settings,
      PartitionLoader loader,
      Clock clock) {
    super(context);
    this.timers = timers;
    this.partition = partition;
    this.settings = settings;
    this.loader = loader;
    this.clock = clock;
    this.index = new SchedulingIndex(settings.inboxMaxWait());
    context
        .getSystem()
        .receptionist()
        .tell(Receptionist.register(Coordinators.serviceKey(partition), context.getSelf()));
    ActorRef<Receptionist.Listing> listings =
        context.messageAdapter(
            Receptionist.Listing.class,
            listing -> new DispatchersListed(listing.getServiceInstances(Dispatcher.SERVICE_KEY)));
    context
        .getSystem()
        .receptionist()
        .tell(Receptionist.subscribe(Dispatcher.SERVICE_KEY, listings));
    reload();
    timers.startTimerWithFixedDelay(
        Tick.RECONCILE,
        Tick.RECONCILE,
        firstReconcile(settings.reconcileInterval(), partition, settings.partitions()),
        settings.reconcileInterval());
    // A coordinator that takes over a partition (start, fail-over, rebalance) loads what the
    // read model holds so far; changes pushed to its predecessor meanwhile reach the read model a
    // moment later, so look again soon rather than only at the next reconciliation.
    timers.startSingleTimer(Tick.CATCH_UP, Tick.CATCH_UP, CATCH_UP_DELAYS.get(0));
  }

  @Override
  public Receive<Command> createReceive() {
    return newReceiveBuilder()
        .onMessage(AgentChanged.class, this::onAgentChanged)
        .onMessage(Loaded.class, this::onLoaded)
        .onMessage(Refresh.class, this::onRefresh)
        .onMessage(DispatchersListed.class, this::onDispatchersListed)
        .onMessageEquals(Tick.PUBLISH, this::onPublish)
        .onMessageEquals(Tick.RECONCILE, this::onReconcile)
        .onMessageEquals(Tick.CATCH_UP, this::onCatchUp)
        .build();
  }

  private Behavior<Command> onAgentChanged(AgentChanged change) {
    apply(change.schedule(), change.seqNr(), change.registered());
    queuePublish();
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
      int end = Math.min(msg.rows().size(), msg.from() + LOAD_CHUNK);
      for (PartitionLoader.Versioned row : msg.rows().subList(msg.from(), end)) {
        apply(row.schedule(), row.seqNr(), true);
      }
      if (end < msg.rows().size()) {
        getContext().getSelf().tell(new Loaded(msg.rows(), null, end));
        return this;
      }
    }
    if (!loaded) {
      loaded = true;
      getContext().getLog().info("Coordinator {} ready with {} agents", partition, index.size());
    }
    queuePublish();
    return this;
  }

  private Behavior<Command> onRefresh(Refresh refresh) {
    if (loaded) {
      // A picture newer than the last publication is published to all, with its own number, so
      // that no dispatcher takes it for the older one it already has.
      onPublish();
      refresh.dispatcher().tell(heads(published));
    }
    return this;
  }

  private Behavior<Command> onDispatchersListed(DispatchersListed listed) {
    Set<ActorRef<Dispatcher.Command>> before = dispatchers;
    dispatchers = Set.copyOf(listed.dispatchers());
    if (loaded && published != null) {
      // A dispatcher that appeared (a node joined or restarted) learns the heads at once.
      Dispatcher.Heads heads = heads(published);
      dispatchers.stream().filter(d -> !before.contains(d)).forEach(d -> d.tell(heads));
    }
    return this;
  }

  /** Publishes once the changes already in the mailbox are applied, not once per change. */
  private void queuePublish() {
    if (loaded && !publishQueued) {
      publishQueued = true;
      getContext().getSelf().tell(Tick.PUBLISH);
    }
  }

  private Behavior<Command> onPublish() {
    publishQueued = false;
    List<HeadsBoard.GroupHeads> heads = current();
    // A partition with tenants also publishes when only a lease started or ended, since every
    // dispatcher ranks tenants by the runner time their leases take.
    if (!heads.equals(published) || (usage.tenanted() && usage.version() != publishedUsage)) {
      published = heads;
      seq++;
      Dispatcher.Heads message = heads(heads);
      dispatchers.forEach(d -> d.tell(message));
    }
    // Time alone can make agents eligible (a snooze or minimum interval ends): publish then.
    Instant now = now();
    index
        .nextEligibilityChange(now)
        .ifPresentOrElse(
            at ->
                timers.startSingleTimer(
                    Tick.PUBLISH, Tick.PUBLISH, untilEligibilityChange(now, at)),
            () -> timers.cancel(Tick.PUBLISH));
    return this;
  }

  private List<HeadsBoard.GroupHeads> current() {
    return index.heads(settings.heads(), now(), versionOf);
  }

  private Dispatcher.Heads heads(List<HeadsBoard.GroupHeads> groups) {
    long now = clock.millis();
    publishedUsage = usage.version();
    return new Dispatcher.Heads(partition, epoch, seq, groups, now, usage.snapshot(now));
  }

  private Behavior<Command> onReconcile() {
    reload();
    return this;
  }

  private void apply(AgentSchedule schedule, long seqNr, boolean registered) {
    Long known = versions.get(schedule.agentId());
    if (known != null && known >= seqNr) {
      return;
    }
    versions.put(schedule.agentId(), seqNr);
    AgentSchedule previous = index.get(schedule.agentId()).orElse(null);
    if (registered) {
      index.upsert(schedule);
    } else {
      index.remove(schedule.agentId());
    }
    usage.changed(
        schedule.agentId(),
        previous != null && previous.leased(),
        registered && schedule.leased(),
        registered,
        clock.millis());
  }

  /**
   * How long to sleep until the next agent may become eligible, at most {@link
   * #LONGEST_PARK_CHECK}: an agent's data (a snooze, a minimum interval) can put that moment
   * arbitrarily far ahead, past what the scheduler can time, so a far moment is looked at again
   * sooner instead.
   */
  static Duration untilEligibilityChange(Instant now, Instant at) {
    Duration delay = Duration.between(now, at).plusMillis(1);
    if (delay.isNegative()) {
      return Duration.ZERO;
    }
    return delay.compareTo(LONGEST_PARK_CHECK) > 0 ? LONGEST_PARK_CHECK : delay;
  }

  static final Duration LONGEST_PARK_CHECK = Duration.ofHours(1);

  /**
   * When a coordinator first reconciles: one interval after its start, plus its share of another,
   * so that the partitions' reloads (started together with the node) come one after another over
   * the interval instead of all at once. Sixteen reloads together held the database for 60–120 ms
   * every 30 s, and notifications acknowledged meanwhile waited that long for their claim.
   */
  static Duration firstReconcile(Duration interval, int partition, int partitions) {
    return interval.plus(interval.multipliedBy(partition).dividedBy(Math.max(1, partitions)));
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
    getContext()
        .pipeToSelf(loader.load(partition), (rows, failure) -> new Loaded(rows, failure, 0));
  }

  private Instant now() {
    return clock.instant();
  }
}
