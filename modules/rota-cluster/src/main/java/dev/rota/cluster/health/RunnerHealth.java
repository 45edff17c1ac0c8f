package dev.rota.cluster.health;

import dev.rota.cluster.CborSerializable;
import dev.rota.cluster.health.RunnerBlock.Status;
import dev.rota.cluster.metrics.RotaMetrics;
import dev.rota.core.health.RunnerOutcome;
import dev.rota.core.health.RunnerRecord;
import dev.rota.core.health.RunnerStats;
import dev.rota.core.tenant.AgentKeys;
import dev.rota.core.tenant.Tenants;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.BackoffSupervisorStrategy;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.SupervisorStrategy;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;
import org.apache.pekko.actor.typed.pubsub.Topic;
import org.apache.pekko.cluster.typed.ClusterSingleton;
import org.apache.pekko.cluster.typed.SingletonActor;
import org.apache.pekko.persistence.typed.PersistenceId;
import org.apache.pekko.persistence.typed.RecoveryCompleted;
import org.apache.pekko.persistence.typed.javadsl.CommandHandlerWithReply;
import org.apache.pekko.persistence.typed.javadsl.EventHandler;
import org.apache.pekko.persistence.typed.javadsl.EventSourcedBehaviorWithEnforcedReplies;
import org.apache.pekko.persistence.typed.javadsl.ReplyEffect;
import org.apache.pekko.persistence.typed.javadsl.SignalHandler;

/**
 * The cluster's record of its runners' health: a persistent cluster singleton. Every agent tells it
 * how each activation ended and on which runner ({@link #report}); it keeps each runner's figures
 * over the stats window in memory (soft state: a fail-over starts them afresh) and degrades a
 * runner whose last activations failed or expired in a row. Degradations, drains and restores are
 * persisted, so they survive fail-over and appear on the event stream, and every change is
 * published on a topic that each node's dispatcher follows: a degraded or draining runner's claims
 * are answered at once with no work.
 */
public final class RunnerHealth
    extends EventSourcedBehaviorWithEnforcedReplies<
        RunnerHealth.Command, RunnerHealth.Event, BlockedRunners> {

  public sealed interface Command extends CborSerializable {}

  /**
   * An activation of {@code runnerId} ended; no reply.
   *
   * @param tenant the tenant of the agent it ran for, whose cap a degradation counts against (null:
   *     none)
   */
  public record Outcome(String runnerId, RunnerOutcome outcome, String tenant) implements Command {}

  /**
   * A runner says it is degraded (for {@code seconds}) or healthy again.
   *
   * @param scope the tenants of the reporting token ({@code acme}, {@code acme,beta}), whose cap
   *     the degradation counts against; null for a token of every tenant
   */
  public record Report(
      String runnerId,
      boolean degraded,
      String reason,
      long seconds,
      String scope,
      ActorRef<RunnerState> replyTo)
      implements Command {}

  /** No new work for the runner until it is restored; its current lease runs on. */
  public record Drain(String runnerId, ActorRef<RunnerState> replyTo) implements Command {}

  /** Clears a runner's degradation or drain. */
  public record Restore(String runnerId, ActorRef<RunnerState> replyTo) implements Command {}

  public record GetReport(ActorRef<HealthReport> replyTo) implements Command {}

  private enum Tick implements Command {
    INSTANCE
  }

  /** A runner's block after a command; {@code block} null when it may take work. */
  public record RunnerState(String runnerId, RunnerBlock block) implements CborSerializable {}

  /** One runner's figures and block, for listings. */
  public record RunnerHealthView(RunnerStats stats, RunnerBlock block)
      implements CborSerializable {}

  /** Every runner with figures in the window or a block, by runner id. */
  public record HealthReport(Map<String, RunnerHealthView> runners) implements CborSerializable {}

  /** What the topic carries: every runner blocked now, by runner id. */
  public record Blocks(Map<String, RunnerBlock> blocks) implements CborSerializable {}

  public sealed interface Event extends CborSerializable {
    String runnerId();
  }

  /**
   * @param byRunner the runner said so itself; otherwise its record did
   * @param scope the tenants whose cap of blocked runners this counts against (null: none; events
   *     written before tenants had caps have none)
   */
  public record RunnerDegraded(
      String runnerId, String reason, Instant at, Instant until, boolean byRunner, String scope)
      implements Event {}

  public record RunnerDraining(String runnerId, Instant at) implements Event {}

  /**
   * @param reason restored by an admin, reported healthy, or the degradation ran out
   */
  public record RunnerRestored(String runnerId, String reason, Instant at) implements Event {}

  public static final String TOPIC = "rota-runner-blocks";

  /** The most runners whose figures are kept; the least recently heard leave first. */
  public static final int MAX_RUNNERS = 10_000;

  /** The longest error text kept per runner. */
  static final int MAX_ERROR_LENGTH = 500;

  private static final Duration TICK = Duration.ofSeconds(1);

  private static final BackoffSupervisorStrategy PERSIST_FAILURE_BACKOFF =
      SupervisorStrategy.restartWithBackoff(Duration.ofMillis(200), Duration.ofSeconds(5), 0.2);

  /** Starts the singleton (and this node's topic) and returns its proxy. */
  public static ActorRef<Command> init(ActorSystem<?> system, HealthSettings settings) {
    ActorRef<Topic.Command<Blocks>> topic = topic(system);
    RotaMetrics metrics = RotaMetrics.get(system);
    ActorRef<Command> proxy =
        ClusterSingleton.get(system)
            .init(SingletonActor.of(create(topic, settings, metrics), "rota-runner-health"));
    RunnerHealthRefs.get(system).proxy = proxy;
    return proxy;
  }

  /** The singleton's behavior, publishing on {@code topic}. */
  static Behavior<Command> create(
      ActorRef<Topic.Command<Blocks>> topic, HealthSettings settings, RotaMetrics metrics) {
    return Behaviors.setup(
        ctx -> Behaviors.withTimers(timers -> new RunnerHealth(topic, settings, metrics, timers)));
  }

  /**
   * Tells the singleton how an activation of agent {@code agentKey} ended; nothing on a node where
   * it was not started (an agent's own tests). A degradation it causes counts under the agent's
   * tenant, none for the default tenant's agents (a node without tenants keeps the whole cap).
   */
  public static void report(
      ActorSystem<?> system, String runnerId, String agentKey, RunnerOutcome outcome) {
    ActorRef<Command> proxy = RunnerHealthRefs.get(system).proxy;
    if (proxy != null) {
      String tenant = AgentKeys.tenantOf(agentKey);
      proxy.tell(new Outcome(runnerId, outcome, Tenants.DEFAULT.equals(tenant) ? null : tenant));
    }
  }

  /** This node's handle on the blocks topic: dispatchers subscribe to it. */
  public static ActorRef<Topic.Command<Blocks>> topic(ActorSystem<?> system) {
    return RunnerHealthRefs.get(system).topic;
  }

  private final ActorRef<Topic.Command<Blocks>> topic;
  private final HealthSettings settings;
  private final RotaMetrics metrics;
  private final BlockCaps caps;

  /** Figures per runner, least recently heard first. */
  private final Map<String, RunnerRecord> records =
      new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, RunnerRecord> eldest) {
          return size() > MAX_RUNNERS;
        }
      };

  private RunnerHealth(
      ActorRef<Topic.Command<Blocks>> topic,
      HealthSettings settings,
      RotaMetrics metrics,
      TimerScheduler<Command> timers) {
    // A write the journal fails must not stop the singleton for good: it restarts and recovers.
    super(PersistenceId.ofUniqueId("rota-runner-health"), PERSIST_FAILURE_BACKOFF);
    this.topic = topic;
    this.settings = settings;
    this.metrics = metrics;
    this.caps = new BlockCaps(settings.maxBlocks(), settings.maxBlocksPerTenant());
    timers.startTimerWithFixedDelay(Tick.INSTANCE, TICK);
  }

  @Override
  public BlockedRunners emptyState() {
    return new BlockedRunners(Map.of(), Map.of());
  }

  @Override
  public CommandHandlerWithReply<Command, Event, BlockedRunners> commandHandler() {
    return newCommandHandlerWithReplyBuilder()
        .forAnyState()
        .onCommand(Outcome.class, this::onOutcome)
        .onCommand(Report.class, this::onReport)
        .onCommand(Drain.class, this::onDrain)
        .onCommand(Restore.class, this::onRestore)
        .onCommand(GetReport.class, this::onGetReport)
        .onCommand(Tick.class, (state, tick) -> onTick(state))
        .build();
  }

  private ReplyEffect<Event, BlockedRunners> onOutcome(BlockedRunners state, Outcome cmd) {
    RunnerOutcome outcome = cmd.outcome();
    if (outcome.error() != null && outcome.error().length() > MAX_ERROR_LENGTH) {
      outcome =
          new RunnerOutcome(
              outcome.kind(),
              outcome.at(),
              outcome.took(),
              outcome.error().substring(0, MAX_ERROR_LENGTH));
    }
    RunnerRecord record = records.computeIfAbsent(cmd.runnerId(), id -> new RunnerRecord());
    boolean degrade = record.record(outcome, settings.policy());
    RunnerBlock block = state.blocks().get(cmd.runnerId());
    if (!degrade
        || (block != null && block.inForce(Instant.now()))
        || caps.full(state.blocks(), state.scopes(), cmd.runnerId(), cmd.tenant())) {
      return Effect().noReply();
    }
    Instant now = Instant.now();
    String reason =
        settings.policy().failuresInARow()
            + " activations failed or expired in a row"
            + (outcome.error() == null ? "" : "; last: " + outcome.error());
    Event degraded =
        new RunnerDegraded(
            cmd.runnerId(),
            reason,
            now,
            now.plus(settings.policy().degradedFor()),
            false,
            cmd.tenant());
    // Published before the write: the runner's next claim races this message, not a database
    // write as well. Should the write fail, the restarted singleton publishes what it recovered.
    publish(
        state.with(
            cmd.runnerId(),
            new RunnerBlock(
                Status.DEGRADED, reason, now, now.plus(settings.policy().degradedFor())),
            cmd.tenant()));
    return Effect()
        .persist(degraded)
        .thenRun(this::publish)
        .thenRun(s -> countBlock(degraded))
        .thenNoReply();
  }

  private ReplyEffect<Event, BlockedRunners> onReport(BlockedRunners state, Report cmd) {
    Instant now = Instant.now();
    RunnerBlock block = state.blocks().get(cmd.runnerId());
    if (cmd.degraded()) {
      long seconds = Math.max(1, Math.min(cmd.seconds(), settings.maxReportSeconds()));
      if (block != null && block.status() == Status.DRAINING) {
        // Draining lasts until an admin restores the runner; its own report does not shorten it.
        return Effect().reply(cmd.replyTo(), new RunnerState(cmd.runnerId(), block));
      }
      if (caps.full(state.blocks(), state.scopes(), cmd.runnerId(), cmd.scope())) {
        return Effect().reply(cmd.replyTo(), new RunnerState(cmd.runnerId(), block));
      }
      return persistAndAnswer(
          new RunnerDegraded(
              cmd.runnerId(), cmd.reason(), now, now.plusSeconds(seconds), true, cmd.scope()),
          cmd.replyTo());
    }
    if (block == null || block.status() != Status.DEGRADED) {
      return Effect().reply(cmd.replyTo(), new RunnerState(cmd.runnerId(), block));
    }
    return persistAndAnswer(
        new RunnerRestored(cmd.runnerId(), "reported healthy", now), cmd.replyTo());
  }

  private ReplyEffect<Event, BlockedRunners> onDrain(BlockedRunners state, Drain cmd) {
    RunnerBlock block = state.blocks().get(cmd.runnerId());
    if (block != null && block.status() == Status.DRAINING) {
      return Effect().reply(cmd.replyTo(), new RunnerState(cmd.runnerId(), block));
    }
    return persistAndAnswer(new RunnerDraining(cmd.runnerId(), Instant.now()), cmd.replyTo());
  }

  private ReplyEffect<Event, BlockedRunners> onRestore(BlockedRunners state, Restore cmd) {
    records.computeIfPresent(cmd.runnerId(), (id, r) -> r.clearStreak());
    if (!state.blocks().containsKey(cmd.runnerId())) {
      return Effect().reply(cmd.replyTo(), new RunnerState(cmd.runnerId(), null));
    }
    return persistAndAnswer(
        new RunnerRestored(cmd.runnerId(), "restored by an admin", Instant.now()), cmd.replyTo());
  }

  private ReplyEffect<Event, BlockedRunners> persistAndAnswer(
      Event event, ActorRef<RunnerState> replyTo) {
    return Effect()
        .persist(event)
        .thenRun(this::publish)
        .thenRun(s -> countBlock(event))
        .thenReply(
            replyTo, s -> new RunnerState(event.runnerId(), s.blocks().get(event.runnerId())));
  }

  private ReplyEffect<Event, BlockedRunners> onGetReport(BlockedRunners state, GetReport cmd) {
    Instant now = Instant.now();
    Duration window = settings.policy().statsWindow();
    Map<String, RunnerHealthView> views = new TreeMap<>();
    records
        .entrySet()
        .removeIf(
            e -> e.getValue().isEmpty(now, window) && !state.blocks().containsKey(e.getKey()));
    records.forEach(
        (id, r) ->
            views.put(id, new RunnerHealthView(r.stats(now, window), state.blocks().get(id))));
    state
        .blocks()
        .forEach((id, b) -> views.putIfAbsent(id, new RunnerHealthView(RunnerStats.EMPTY, b)));
    return Effect().reply(cmd.replyTo(), new HealthReport(views));
  }

  /**
   * Ends degradations whose time ran out (dispatchers already ignore them by their {@code until})
   * and publishes the blocks again, so that a node that joined since hears them too.
   */
  private ReplyEffect<Event, BlockedRunners> onTick(BlockedRunners state) {
    Instant now = Instant.now();
    var expired =
        state.blocks().entrySet().stream().filter(e -> !e.getValue().inForce(now)).findFirst();
    if (expired.isPresent()) {
      return Effect()
          .persist(new RunnerRestored(expired.get().getKey(), "degradation ran out", now))
          .thenRun(this::publish)
          .thenNoReply();
    }
    if (!state.blocks().isEmpty()) {
      publish(state);
    }
    return Effect().noReply();
  }

  @Override
  public EventHandler<BlockedRunners, Event> eventHandler() {
    return newEventHandlerBuilder()
        .forAnyState()
        .onEvent(
            RunnerDegraded.class,
            (state, e) ->
                state.with(
                    e.runnerId(),
                    new RunnerBlock(Status.DEGRADED, e.reason(), e.at(), e.until()),
                    e.scope()))
        .onEvent(
            RunnerDraining.class,
            (state, e) ->
                state.with(
                    e.runnerId(),
                    new RunnerBlock(Status.DRAINING, "drained by an admin", e.at(), null)))
        .onEvent(RunnerRestored.class, (state, e) -> state.with(e.runnerId(), null))
        .build();
  }

  @Override
  public SignalHandler<BlockedRunners> signalHandler() {
    return newSignalHandlerBuilder().onSignal(RecoveryCompleted.instance(), this::publish).build();
  }

  private void publish(BlockedRunners state) {
    topic.tell(Topic.publish(new Blocks(state.blocks())));
  }

  /** Counts blocks by pool as they are persisted (not at recovery). */
  private void countBlock(Event event) {
    if (event instanceof RunnerDegraded e) {
      metrics.runnerBlocked(metrics.poolLabel(e.runnerId()), Status.DEGRADED.wireName());
    } else if (event instanceof RunnerDraining e) {
      metrics.runnerBlocked(metrics.poolLabel(e.runnerId()), Status.DRAINING.wireName());
    }
  }
}
