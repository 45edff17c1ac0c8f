package dev.rota.cluster.system;

import dev.rota.cluster.CborSerializable;
import java.time.Instant;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.pubsub.Topic;
import org.apache.pekko.cluster.typed.ClusterSingleton;
import org.apache.pekko.cluster.typed.SingletonActor;
import org.apache.pekko.persistence.typed.PersistenceId;
import org.apache.pekko.persistence.typed.RecoveryCompleted;
import org.apache.pekko.persistence.typed.javadsl.CommandHandlerWithReply;
import org.apache.pekko.persistence.typed.javadsl.EventHandler;
import org.apache.pekko.persistence.typed.javadsl.EventSourcedBehaviorWithEnforcedReplies;
import org.apache.pekko.persistence.typed.javadsl.SignalHandler;

/**
 * The system-wide pause switch: a persistent cluster singleton, so a pause survives restarts and
 * fail-over. Every change (and the state after recovery) is published on a topic that each node's
 * dispatcher follows; while paused, claims are answered {@code paused} and running activations
 * finish normally.
 */
public final class SystemControl
    extends EventSourcedBehaviorWithEnforcedReplies<
        SystemControl.Command, SystemControl.Event, SystemControl.State> {

  public sealed interface Command extends CborSerializable {}

  public record SetPaused(boolean paused, ActorRef<PauseState> replyTo) implements Command {}

  public record GetPaused(ActorRef<PauseState> replyTo) implements Command {}

  /** The switch's position; the reply to every command and what the topic carries. */
  public record PauseState(boolean paused, Instant since) implements CborSerializable {}

  public sealed interface Event extends CborSerializable {}

  public record PauseChanged(boolean paused, Instant at) implements Event {}

  public record State(boolean paused, Instant since) implements CborSerializable {}

  public static final String TOPIC = "rota-system-pause";

  private static final org.apache.pekko.actor.typed.BackoffSupervisorStrategy
      PERSIST_FAILURE_BACKOFF =
          org.apache.pekko.actor.typed.SupervisorStrategy.restartWithBackoff(
              java.time.Duration.ofMillis(200), java.time.Duration.ofSeconds(5), 0.2);

  /** Starts the singleton (and its topic) and returns its proxy. */
  public static ActorRef<Command> init(ActorSystem<?> system) {
    ActorRef<Topic.Command<PauseState>> topic = topic(system);
    return ClusterSingleton.get(system)
        .init(
            SingletonActor.of(
                Behaviors.setup(ctx -> new SystemControl(topic)), "rota-system-control"));
  }

  /** This node's handle on the pause topic: publish, or subscribe to follow the switch. */
  public static ActorRef<Topic.Command<PauseState>> topic(ActorSystem<?> system) {
    return TopicHolder.get(system).topic();
  }

  private final ActorRef<Topic.Command<PauseState>> topic;

  private SystemControl(ActorRef<Topic.Command<PauseState>> topic) {
    // A write the journal fails (the node's write guard after a stall, a database restart) must
    // not stop the singleton for good: it restarts, recovers and takes commands again.
    super(PersistenceId.ofUniqueId("rota-system"), PERSIST_FAILURE_BACKOFF);
    this.topic = topic;
  }

  @Override
  public State emptyState() {
    return new State(false, null);
  }

  @Override
  public CommandHandlerWithReply<Command, Event, State> commandHandler() {
    return newCommandHandlerWithReplyBuilder()
        .forAnyState()
        .onCommand(
            GetPaused.class,
            (state, cmd) ->
                Effect().reply(cmd.replyTo(), new PauseState(state.paused(), state.since())))
        .onCommand(
            SetPaused.class,
            (state, cmd) -> {
              if (state.paused() == cmd.paused()) {
                return Effect().reply(cmd.replyTo(), new PauseState(state.paused(), state.since()));
              }
              return Effect()
                  .persist(new PauseChanged(cmd.paused(), Instant.now()))
                  .thenRun(this::publish)
                  .thenReply(cmd.replyTo(), s -> new PauseState(s.paused(), s.since()));
            })
        .build();
  }

  @Override
  public EventHandler<State, Event> eventHandler() {
    return newEventHandlerBuilder()
        .forAnyState()
        .onEvent(PauseChanged.class, (state, e) -> new State(e.paused(), e.at()))
        .build();
  }

  @Override
  public SignalHandler<State> signalHandler() {
    return newSignalHandlerBuilder().onSignal(RecoveryCompleted.instance(), this::publish).build();
  }

  private void publish(State state) {
    topic.tell(Topic.publish(new PauseState(state.paused(), state.since())));
  }

  /** One topic actor per node. */
  private static final class TopicHolder implements org.apache.pekko.actor.typed.Extension {
    private final ActorRef<Topic.Command<PauseState>> topic;

    private TopicHolder(ActorSystem<?> system) {
      topic =
          system.systemActorOf(
              Topic.create(PauseState.class, TOPIC),
              "rota-pause-topic",
              org.apache.pekko.actor.typed.Props.empty());
    }

    ActorRef<Topic.Command<PauseState>> topic() {
      return topic;
    }

    static TopicHolder get(ActorSystem<?> system) {
      return Id.INSTANCE.apply(system);
    }

    private static final class Id extends org.apache.pekko.actor.typed.ExtensionId<TopicHolder> {
      static final Id INSTANCE = new Id();

      @Override
      public TopicHolder createExtension(ActorSystem<?> system) {
        return new TopicHolder(system);
      }
    }
  }

  static Behavior<Command> behaviorForTests(ActorRef<Topic.Command<PauseState>> topic) {
    return new SystemControl(topic);
  }
}
