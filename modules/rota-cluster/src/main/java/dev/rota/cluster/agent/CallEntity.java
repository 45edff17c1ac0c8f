package dev.rota.cluster.agent;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.rota.cluster.CborSerializable;
import dev.rota.core.model.Replies;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;
import org.apache.pekko.cluster.sharding.typed.javadsl.ClusterSharding;
import org.apache.pekko.cluster.sharding.typed.javadsl.Entity;
import org.apache.pekko.cluster.sharding.typed.javadsl.EntityTypeKey;
import org.apache.pekko.persistence.typed.PersistenceId;
import org.apache.pekko.persistence.typed.RecoveryCompleted;
import org.apache.pekko.persistence.typed.javadsl.CommandHandlerWithReply;
import org.apache.pekko.persistence.typed.javadsl.EventHandler;
import org.apache.pekko.persistence.typed.javadsl.EventSourcedBehaviorWithEnforcedReplies;
import org.apache.pekko.persistence.typed.javadsl.ReplyEffect;
import org.apache.pekko.persistence.typed.javadsl.SignalHandler;

/**
 * A call made from outside Rota ({@code POST /v1/agents/{agentId}/notifications} with {@code
 * call}), one small entity per call id ({@code <tenant>~<random>}, so the id names its tenant): it
 * keeps the call's deadline and, once the target's turn answers (its outbox delivers {@link Answer}
 * here), the answer, for {@code rota.calls.retention}. {@link Get} is the long poll of {@code GET
 * /v1/calls/{callId}}: answered at once when the call is over, or the moment it is. Waiting pollers
 * are held in memory only; a poller whose node dies asks again.
 */
public final class CallEntity
    extends EventSourcedBehaviorWithEnforcedReplies<
        CallEntity.Command, CallEntity.Event, CallEntity.State> {

  public static final EntityTypeKey<Command> ENTITY_TYPE_KEY =
      EntityTypeKey.create(Command.class, "Call");

  public sealed interface Command extends CborSerializable {}

  /**
   * The call is made, with this timeout; replies {@link View}. Again for the same id: no change.
   */
  public record Open(String targetAgentId, long timeoutSeconds, ActorRef<Reply> replyTo)
      implements Command {}

  /** The target's reply ({@link Replies}); replies {@link AgentEntity.Done}. */
  public record Answer(String status, JsonNode payload, ActorRef<AgentEntity.Reply> replyTo)
      implements Command {}

  /** Replies {@link View} now, or within {@code waitMillis} the moment the call is answered. */
  public record Get(long waitMillis, ActorRef<Reply> replyTo) implements Command {}

  /** The call's deadline passed (its own timer). */
  enum DeadlinePassed implements Command {
    INSTANCE
  }

  /** A poller's wait is over (its own timer). */
  record WaitOver(long waiter) implements Command {}

  public sealed interface Reply extends CborSerializable {}

  /**
   * The call as {@code GET /v1/calls/{callId}} shows it; {@code known} false for a call never made
   * (or whose answer is past its retention).
   */
  public record View(
      boolean known,
      String callId,
      String status,
      JsonNode result,
      JsonNode error,
      Instant answeredAt)
      implements Reply {}

  public sealed interface Event extends CborSerializable {}

  public record Opened(String targetAgentId, Instant deadline, Instant at) implements Event {}

  /**
   * @param result the completion's result when answered
   * @param error {@code {"reason", "message"}} when failed or timed out
   */
  public record Answered(String status, JsonNode result, JsonNode error, Instant at)
      implements Event {}

  /**
   * @param status pending until answered
   */
  public record State(
      String targetAgentId,
      Instant deadline,
      String status,
      JsonNode result,
      JsonNode error,
      Instant answeredAt)
      implements CborSerializable {
    static final State NONE = new State(null, null, null, null, null, null);

    boolean known() {
      return status != null;
    }

    boolean pending() {
      return "pending".equals(status);
    }
  }

  public static void init(org.apache.pekko.actor.typed.ActorSystem<?> system) {
    CallSettings settings = CallSettings.from(system.settings().config());
    ClusterSharding.get(system)
        .init(
            Entity.of(
                ENTITY_TYPE_KEY,
                ctx -> create(ctx.getEntityId(), settings.retention(), Clock.systemUTC())));
  }

  public static Behavior<Command> create(String callId, Duration retention, Clock clock) {
    return Behaviors.withTimers(timers -> new CallEntity(callId, retention, clock, timers));
  }

  private final String callId;
  private final Duration retention;
  private final Clock clock;
  private final TimerScheduler<Command> timers;
  private final List<Waiter> waiters = new ArrayList<>();
  private long nextWaiter;

  private record Waiter(long id, ActorRef<Reply> replyTo) {}

  private CallEntity(
      String callId, Duration retention, Clock clock, TimerScheduler<Command> timers) {
    super(PersistenceId.of(ENTITY_TYPE_KEY.name(), callId));
    this.callId = callId;
    this.retention = retention;
    this.clock = clock;
    this.timers = timers;
  }

  @Override
  public State emptyState() {
    return State.NONE;
  }

  @Override
  public SignalHandler<State> signalHandler() {
    return newSignalHandlerBuilder()
        .onSignal(RecoveryCompleted.instance(), this::timeDeadline)
        .build();
  }

  @Override
  public CommandHandlerWithReply<Command, Event, State> commandHandler() {
    return newCommandHandlerWithReplyBuilder()
        .forAnyState()
        .onCommand(Open.class, this::onOpen)
        .onCommand(Answer.class, this::onAnswer)
        .onCommand(Get.class, this::onGet)
        .onCommand(DeadlinePassed.class, this::onDeadline)
        .onCommand(WaitOver.class, this::onWaitOver)
        .build();
  }

  private ReplyEffect<Event, State> onOpen(State state, Open cmd) {
    if (state.known()) {
      return Effect().reply(cmd.replyTo(), view(state));
    }
    Instant now = clock.instant();
    return Effect()
        .persist(new Opened(cmd.targetAgentId(), now.plusSeconds(cmd.timeoutSeconds()), now))
        .thenRun(this::timeDeadline)
        .thenReply(cmd.replyTo(), this::view);
  }

  /**
   * The answer is kept once; a later one (after a timeout) changes nothing. An answer may come
   * before {@link Open} (the call is opened once its notification is accepted, and a quick turn can
   * answer first): it is kept, and the {@code Open} that follows changes nothing.
   */
  private ReplyEffect<Event, State> onAnswer(State state, Answer cmd) {
    Instant now = clock.instant();
    if (state.known() && !state.pending()) {
      return Effect().reply(cmd.replyTo(), new AgentEntity.Done(now));
    }
    JsonNode payload = cmd.payload();
    return Effect()
        .persist(
            new Answered(
                cmd.status(),
                payload == null ? null : payload.get("result"),
                payload == null ? null : payload.get("error"),
                now))
        .thenRun(this::answerWaiters)
        .thenReply(cmd.replyTo(), s -> new AgentEntity.Done(now));
  }

  private ReplyEffect<Event, State> onGet(State state, Get cmd) {
    if (!state.pending() || cmd.waitMillis() <= 0) {
      return Effect().reply(cmd.replyTo(), view(state));
    }
    long id = nextWaiter++;
    waiters.add(new Waiter(id, cmd.replyTo()));
    timers.startSingleTimer("wait-" + id, new WaitOver(id), Duration.ofMillis(cmd.waitMillis()));
    return Effect().noReply();
  }

  private ReplyEffect<Event, State> onWaitOver(State state, WaitOver over) {
    waiters.removeIf(
        w -> {
          if (w.id() == over.waiter()) {
            w.replyTo().tell(view(state));
            return true;
          }
          return false;
        });
    return Effect().noReply();
  }

  private ReplyEffect<Event, State> onDeadline(State state, DeadlinePassed due) {
    if (!state.pending()) {
      return Effect().noReply();
    }
    Instant now = clock.instant();
    if (now.isBefore(state.deadline())) {
      timeDeadline(state);
      return Effect().noReply();
    }
    ObjectNode error = JsonNodeFactory.instance.objectNode();
    error.put("reason", "timeout");
    error.put("message", "no answer within the call's timeout");
    return Effect()
        .persist(new Answered(Replies.TIMED_OUT, null, error, now))
        .thenRun(this::answerWaiters)
        .thenNoReply();
  }

  private void answerWaiters(State state) {
    for (Waiter w : waiters) {
      timers.cancel("wait-" + w.id());
      w.replyTo().tell(view(state));
    }
    waiters.clear();
  }

  private void timeDeadline(State state) {
    if (state.pending()) {
      Duration left = Duration.between(clock.instant(), state.deadline());
      timers.startSingleTimer(
          "deadline", DeadlinePassed.INSTANCE, left.isNegative() ? Duration.ZERO : left);
    }
  }

  private View view(State state) {
    boolean expired =
        state.answeredAt() != null && state.answeredAt().plus(retention).isBefore(clock.instant());
    if (!state.known() || expired) {
      return new View(false, callId, null, null, null, null);
    }
    return new View(
        true, callId, state.status(), state.result(), state.error(), state.answeredAt());
  }

  @Override
  public EventHandler<State, Event> eventHandler() {
    return newEventHandlerBuilder()
        .forAnyState()
        .onEvent(
            Opened.class,
            (s, e) -> new State(e.targetAgentId(), e.deadline(), "pending", null, null, null))
        .onEvent(
            Answered.class,
            (s, e) ->
                new State(
                    s.targetAgentId(), s.deadline(), e.status(), e.result(), e.error(), e.at()))
        .build();
  }
}
