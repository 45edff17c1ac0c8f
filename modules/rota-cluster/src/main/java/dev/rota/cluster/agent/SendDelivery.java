package dev.rota.cluster.agent;

import dev.rota.cluster.agent.AgentEntity.Accepted;
import dev.rota.cluster.agent.AgentEntity.Done;
import dev.rota.cluster.agent.AgentEntity.ErrorCode;
import dev.rota.cluster.agent.AgentEntity.Rejected;
import dev.rota.cluster.agent.AgentEntity.Reply;
import dev.rota.cluster.agent.AgentEntity.RetrySend;
import dev.rota.cluster.agent.AgentEntity.SendAnswered;
import dev.rota.cluster.agent.AgentEvents.CallResolved;
import dev.rota.cluster.agent.AgentEvents.Event;
import dev.rota.cluster.agent.AgentEvents.SendDelivered;
import dev.rota.cluster.agent.AgentEvents.SendUndeliverable;
import dev.rota.core.model.AgentState;
import dev.rota.core.model.CallInfo;
import dev.rota.core.model.DeadLetter;
import dev.rota.core.model.Ids;
import dev.rota.core.model.Notification;
import dev.rota.core.model.OutboxItem;
import dev.rota.core.model.Replies;
import dev.rota.core.tenant.AgentKeys;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;
import org.apache.pekko.persistence.typed.javadsl.ReplyEffect;

/**
 * Delivers an agent's outbox: each item is handed to its target ({@link Mailbox}) once it is
 * durable in the sender's journal, and its fate recorded by an event: {@link SendDelivered}, or
 * {@link SendUndeliverable} when the target does not exist or keeps refusing past {@code
 * rota.calls.delivery-timeout}. A refusal or a lost answer is tried again after a back-off; the
 * item's dedupe key makes a second delivery of what was in fact accepted a duplicate, so each item
 * lands once. An item never vanishes unrecorded: a call given up is answered failed to the sender
 * itself, a plain send becomes the sender's dead letter.
 */
final class SendDelivery {
  /** What the target's answer means for the item. */
  enum Outcome {
    DELIVERED,
    /** The target does not exist, or can never take the item. */
    GONE,
    /** The target refused for now, or did not answer in time. */
    REFUSED
  }

  private final AgentEffects entity;
  private final ActorContext<AgentEntity.Command> context;
  private final TimerScheduler<AgentEntity.Command> timers;
  private final CallSettings settings;
  private final Mailbox mailbox;
  private final Set<String> inFlight = new HashSet<>();
  private final Map<String, Integer> tries = new HashMap<>();

  SendDelivery(
      AgentEffects entity,
      ActorContext<AgentEntity.Command> context,
      TimerScheduler<AgentEntity.Command> timers,
      CallSettings settings,
      Mailbox mailbox) {
    this.entity = entity;
    this.context = context;
    this.timers = timers;
    this.settings = settings;
    this.mailbox = mailbox;
  }

  /** Starts the delivery of every outbox item not already on its way or waiting for a retry. */
  void deliver(AgentState state) {
    for (OutboxItem item : state.calls().outbox()) {
      if (!inFlight.contains(item.sendId()) && !timers.isTimerActive(retryKey(item.sendId()))) {
        send(item);
      }
    }
  }

  private void send(OutboxItem item) {
    inFlight.add(item.sendId());
    context.pipeToSelf(
        mailbox.deliver(item, settings.askTimeout()),
        (reply, failure) -> answered(item.sendId(), reply, failure));
  }

  private static SendAnswered answered(String sendId, Reply reply, Throwable failure) {
    if (failure != null) {
      return new SendAnswered(sendId, Outcome.REFUSED, String.valueOf(failure.getMessage()));
    }
    if (reply instanceof Accepted || reply instanceof Done) {
      return new SendAnswered(sendId, Outcome.DELIVERED, null);
    }
    if (reply instanceof Rejected r
        && (r.code() == ErrorCode.NOT_FOUND || r.code() == ErrorCode.INVALID)) {
      return new SendAnswered(sendId, Outcome.GONE, r.message());
    }
    String detail = reply instanceof Rejected r ? r.message() : String.valueOf(reply);
    return new SendAnswered(sendId, Outcome.REFUSED, detail);
  }

  ReplyEffect<Event, AgentState> onAnswered(AgentState state, SendAnswered answer) {
    inFlight.remove(answer.sendId());
    Optional<OutboxItem> found = state.calls().outboxItem(answer.sendId());
    if (found.isEmpty()) {
      return entity.effect().noReply();
    }
    OutboxItem item = found.get();
    Instant now = entity.now();
    if (answer.outcome() == Outcome.DELIVERED) {
      tries.remove(item.sendId());
      entity.callMeters().delivered(Duration.between(item.at(), now));
      return entity.persist(new SendDelivered(item.sendId(), item.targetKey(), now)).thenNoReply();
    }
    boolean timedOut = Duration.between(item.at(), now).compareTo(settings.deliveryTimeout()) >= 0;
    if (answer.outcome() == Outcome.GONE || timedOut) {
      tries.remove(item.sendId());
      String reason = answer.outcome() == Outcome.GONE ? "not_found" : "refused";
      String message =
          "could not deliver to "
              + AgentKeys.agentIdOf(item.targetKey())
              + ": "
              + (answer.detail() == null ? reason : answer.detail());
      return entity.persist(givenUp(state, item, reason, message, now)).thenNoReply();
    }
    int tried = tries.merge(item.sendId(), 1, Integer::sum);
    timers.startSingleTimer(
        retryKey(item.sendId()), new RetrySend(item.sendId()), settings.backoff(tried - 1));
    return entity.effect().noReply();
  }

  ReplyEffect<Event, AgentState> onRetry(AgentState state, RetrySend retry) {
    state.calls().outboxItem(retry.sendId()).ifPresent(this::send);
    return entity.effect().noReply();
  }

  /**
   * The events of an item given up: a call is answered failed ({@code undeliverable}) to the
   * sender, a reply is only recorded (its caller is gone), a plain send becomes a dead letter.
   */
  private List<Event> givenUp(
      AgentState state, OutboxItem item, String reason, String message, Instant now) {
    if (item.call() != null) {
      CallInfo call = item.call();
      String callId = call.callId();
      Notification reply =
          new Notification(
              Ids.randomId(),
              Replies.TYPE,
              Replies.failed(
                  callId,
                  new CallInfo.Party(
                      AgentKeys.tenantOf(item.targetKey()), AgentKeys.agentIdOf(item.targetKey())),
                  Replies.FAILED,
                  Replies.UNDELIVERABLE,
                  message),
              null,
              now,
              0);
      int toInbox = state.calls().resolved(callId, reply).toInbox().size();
      return List.of(
          new SendUndeliverable(item.sendId(), item.targetKey(), reason, null, now),
          new CallResolved(callId, Replies.FAILED, reply, toInbox, now));
    }
    if (item.isReply()) {
      return List.of(new SendUndeliverable(item.sendId(), item.targetKey(), reason, null, now));
    }
    Notification n =
        new Notification(Ids.randomId(), item.type(), item.payload(), item.dedupeKey(), now, 0);
    DeadLetter dead =
        new DeadLetter(
            Ids.deadLetterId(entity.agentId(), n.notificationId()),
            n,
            "undeliverable to " + AgentKeys.agentIdOf(item.targetKey()) + ": " + message,
            now);
    return List.of(new SendUndeliverable(item.sendId(), item.targetKey(), reason, dead, now));
  }

  private static String retryKey(String sendId) {
    return "send-" + sendId;
  }
}
