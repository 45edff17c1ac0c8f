package dev.rota.cluster.agent;

import dev.rota.cluster.agent.AgentEntity.Command;
import dev.rota.cluster.agent.AgentEvents.Event;
import dev.rota.cluster.metrics.RotaMetrics;
import dev.rota.core.model.AgentState;
import java.time.Clock;
import java.time.Duration;
import java.util.function.LongSupplier;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.SupervisorStrategy;
import org.apache.pekko.actor.typed.TypedActorContext;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;
import org.apache.pekko.persistence.typed.PersistenceId;
import org.apache.pekko.persistence.typed.RecoveryCompleted;
import org.apache.pekko.persistence.typed.javadsl.CommandHandlerWithReply;
import org.apache.pekko.persistence.typed.javadsl.EventHandler;
import org.apache.pekko.persistence.typed.javadsl.EventSourcedBehaviorWithEnforcedReplies;
import org.apache.pekko.persistence.typed.javadsl.RetentionCriteria;
import org.apache.pekko.persistence.typed.javadsl.SignalHandler;

/**
 * The event-sourced behaviour of one agent, whose protocol is {@link AgentEntity} (and whose {@code
 * create} builds this): its persistence id, snapshots, recovery (the lease's timer, and what it
 * owes others delivered again) and the handlers, which {@link AgentCommandHandler} and {@link
 * AgentEvents} hold.
 */
final class AgentBehavior
    extends EventSourcedBehaviorWithEnforcedReplies<Command, Event, AgentState> {
  private final String agentId;
  private final AgentSettings settings;
  private final LeaseTimer leaseTimer;
  private final AgentCommandHandler commands;

  AgentBehavior(
      String agentId,
      AgentSettings settings,
      AgentChangeListener listener,
      Clock clock,
      LongSupplier nanoTime,
      Mailbox mailbox,
      ActorContext<Command> context,
      TimerScheduler<Command> timers) {
    // A write the journal fails (a database restart, the write guard after a stall) restarts the
    // agent after a back-off, commands stashed meanwhile, instead of stopping it until its next
    // message.
    super(
        PersistenceId.of(AgentEntity.ENTITY_TYPE_KEY.name(), agentId),
        SupervisorStrategy.restartWithBackoff(Duration.ofMillis(200), Duration.ofSeconds(5), 0.2));
    this.agentId = agentId;
    this.settings = settings;
    this.leaseTimer = new LeaseTimer(timers, nanoTime, settings.expiryGrace());
    RotaMetrics metrics = RotaMetrics.get(context.getSystem());
    AgentEffects effects = new AgentEffects(this, agentId, context, clock, listener, metrics);
    this.commands =
        new AgentCommandHandler(
            effects,
            leaseTimer,
            timers,
            settings,
            CallSettings.from(context.getSystem().settings().config()),
            mailbox,
            metrics,
            context);
  }

  /**
   * Persistence Typed publishes every persisted event to the actor system's event stream unless
   * told not to (only its Scala DSL can): one more message per event, to one actor every agent of
   * the node shares, for subscribers Rota does not have. The events stream of the API reads the
   * journal instead (docs/performance.md, "The turn path").
   */
  @Override
  public Behavior<Command> apply(TypedActorContext<Command> context) {
    // The Scala trait is a Behavior only to Scala's type system; the object is one (the base class
    // makes the same cast).
    @SuppressWarnings("unchecked")
    Behavior<Command> behavior =
        (Behavior<Command>) (Object) createEventSourcedBehavior().withEventPublishing(false);
    return behavior;
  }

  @Override
  public AgentState emptyState() {
    return AgentState.empty(agentId);
  }

  /**
   * Snapshots keep recovery short; events are never deleted with them (decision 10): the events
   * stream reads them in journal order, and a read model written before the journal wrote it is
   * caught up from them.
   */
  @Override
  public RetentionCriteria retentionCriteria() {
    return RetentionCriteria.snapshotEvery(settings.snapshotEvery(), 2);
  }

  /** Besides every {@code snapshot-every} events: when retention asks (decision 124). */
  @Override
  public boolean shouldSnapshot(AgentState state, Event event, long sequenceNr) {
    return event instanceof AgentEvents.SnapshotTaken;
  }

  @Override
  public SignalHandler<AgentState> signalHandler() {
    return newSignalHandlerBuilder()
        .onSignal(
            RecoveryCompleted.instance(),
            state -> {
              if (state.lease() != null) {
                leaseTimer.start(state.lease());
              }
              commands.owed(state);
            })
        .build();
  }

  @Override
  public CommandHandlerWithReply<Command, Event, AgentState> commandHandler() {
    return commands.build(newCommandHandlerWithReplyBuilder());
  }

  @Override
  public EventHandler<AgentState, Event> eventHandler() {
    return newEventHandlerBuilder()
        .forAnyState()
        .onAnyEvent((state, event) -> AgentEvents.apply(state, event, settings));
  }
}
