package dev.rota.cluster.agent;

import com.fasterxml.jackson.databind.JsonNode;
import dev.rota.cluster.agent.AgentEntity.Accepted;
import dev.rota.cluster.agent.AgentEntity.AcceptedAll;
import dev.rota.cluster.agent.AgentEntity.ErrorCode;
import dev.rota.cluster.agent.AgentEntity.Notify;
import dev.rota.cluster.agent.AgentEntity.NotifyAll;
import dev.rota.cluster.agent.AgentEntity.NotifyItem;
import dev.rota.cluster.agent.AgentEntity.Rejected;
import dev.rota.cluster.agent.AgentEntity.Reply;
import dev.rota.cluster.agent.AgentEvents.Event;
import dev.rota.cluster.agent.AgentEvents.InboxSummary;
import dev.rota.cluster.agent.AgentEvents.LeaseInterrupted;
import dev.rota.cluster.agent.AgentEvents.NotificationReceived;
import dev.rota.cluster.agent.AgentEvents.NotificationRejected;
import dev.rota.cluster.agent.AgentEvents.NotificationSteered;
import dev.rota.cluster.metrics.RotaMetrics;
import dev.rota.core.model.AgentState;
import dev.rota.core.model.Ids;
import dev.rota.core.model.Lease;
import dev.rota.core.model.NewInput;
import dev.rota.core.model.NewInputState;
import dev.rota.core.model.Notification;
import dev.rota.core.model.TextRules;
import dev.rota.core.model.TextRules.Kind;
import dev.rota.core.model.TextRules.Violation;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.pekko.persistence.typed.javadsl.ReplyEffect;

/**
 * An agent's inbox commands: one notification, or several persisted in one atomic write. Each is
 * refused when invalid or the inbox is full (by count or by bytes), and answered with the earlier
 * notification when its dedupe key was seen within the window. While the agent holds a lease, its
 * (or the notification's) {@code newInput} decides what the notification does to the turn: queue,
 * steer, interrupt or reject (docs/architecture.md, "New input during a turn").
 */
final class InboxCommands {
  private final AgentEffects entity;
  private final AgentSettings settings;
  private final RotaMetrics metrics;
  private final TurnInput turnInput;

  /** The inbox whose size {@link #sizedBytes} is: sizes are summed again only when it changed. */
  private List<Notification> sizedInbox;

  private long sizedBytes;

  InboxCommands(
      AgentEffects entity, AgentSettings settings, RotaMetrics metrics, TurnInput turnInput) {
    this.entity = entity;
    this.settings = settings;
    this.metrics = metrics;
    this.turnInput = turnInput;
  }

  ReplyEffect<Event, AgentState> onNotify(AgentState state, Notify cmd) {
    Optional<Violation> bad = unstorable(cmd.type(), cmd.payload(), cmd.dedupeKey());
    if (bad.isPresent()) {
      metrics.notificationRefused("invalid");
      return entity.effect().reply(cmd.replyTo(), AgentEffects.invalid(bad.get()));
    }
    Instant now = entity.now();
    var duplicate = state.duplicateOf(cmd.dedupeKey(), now, settings.dedupeWindow());
    if (duplicate.isPresent()) {
      metrics.notificationAccepted(true);
      return entity
          .effect()
          .reply(
              cmd.replyTo(),
              new Accepted(
                  duplicate.get().notificationId(), state.inbox().size(), true, false, false));
    }
    // What new input does to a turn in flight; queueing is what happens without a turn.
    NewInput policy =
        state.lease() == null
            ? NewInput.QUEUE
            : cmd.newInput() != null ? cmd.newInput() : state.config().newInput();
    if (policy == NewInput.REJECT) {
      return rejectedDuringTurn(state, cmd, now);
    }
    if (state.inboxFull()) {
      metrics.notificationRefused("inbox_full");
      return entity.effect().reply(cmd.replyTo(), inboxFull(state));
    }
    Notification n =
        new Notification(
            Ids.randomId(), cmd.type(), cmd.payload(), cmd.dedupeKey(), now, 0, cmd.call());
    long bytesBefore = inboxBytes(state);
    long bytesAfter = bytesBefore + n.estimatedBytes();
    if (bytesAfter > settings.maxInboxBytes()) {
      metrics.notificationRefused("inbox_full");
      return entity.effect().reply(cmd.replyTo(), inboxBytesFull());
    }
    if (policy == NewInput.STEER) {
      return steered(state, cmd, n, now, bytesAfter);
    }
    if (policy == NewInput.INTERRUPT) {
      return interrupting(state, cmd, n, now, bytesAfter);
    }
    return entity
        .persist(new NotificationReceived(n))
        .thenRun(s -> sized(s, bytesAfter))
        .thenReply(
            cmd.replyTo(),
            s -> new Accepted(n.notificationId(), s.inbox().size(), false, false, false));
  }

  /**
   * Refused while a turn runs: nothing of the notification is kept but the record of refusing it.
   */
  private ReplyEffect<Event, AgentState> rejectedDuringTurn(
      AgentState state, Notify cmd, Instant now) {
    metrics.notificationRefused("turn_in_progress");
    String leaseId = state.lease().leaseId();
    Rejected reply =
        new Rejected(
            ErrorCode.TURN_IN_PROGRESS,
            "agent "
                + entity.agentId()
                + " is running a turn ("
                + Ids.leaseLabel(leaseId)
                + ") and refuses new input meanwhile");
    return entity
        .persist(new NotificationRejected(cmd.type(), cmd.dedupeKey(), leaseId, now))
        .thenReply(cmd.replyTo(), s -> reply);
  }

  /** {@code n} joins the running lease, in the same write that accepts it. */
  private ReplyEffect<Event, AgentState> steered(
      AgentState state, Notify cmd, Notification n, Instant now, long bytesAfter) {
    String leaseId = state.lease().leaseId();
    return entity
        .persist(
            List.of(
                new NotificationReceived(n),
                new NotificationSteered(n.notificationId(), leaseId, now)))
        .thenRun(s -> sized(s, bytesAfter))
        .thenRun(turnInput::steered)
        .thenReply(
            cmd.replyTo(),
            s -> new Accepted(n.notificationId(), s.inbox().size(), false, true, false));
  }

  /** {@code n} ends the running lease, in the same write that accepts it; it joins the inbox. */
  private ReplyEffect<Event, AgentState> interrupting(
      AgentState state, Notify cmd, Notification n, Instant now, long bytesAfter) {
    Lease lease = state.lease();
    AgentState after =
        NewInputState.interrupted(
            state.notified(n, settings.dedupeWindow(), settings.maxDedupeKeys()),
            n.notificationId(),
            now);
    return entity
        .persist(
            List.of(
                new NotificationReceived(n),
                new LeaseInterrupted(
                    lease.leaseId(), n.notificationId(), now, InboxSummary.of(after))))
        .thenRun(s -> sized(s, bytesAfter))
        .thenRun(s -> turnInput.interrupted(lease))
        .thenReply(
            cmd.replyTo(),
            s -> new Accepted(n.notificationId(), s.inbox().size(), false, false, true));
  }

  ReplyEffect<Event, AgentState> onNotifyAll(AgentState state, NotifyAll cmd) {
    Instant now = entity.now();
    AgentState after = state;
    List<Event> events = new ArrayList<>(cmd.items().size());
    List<Reply> replies = new ArrayList<>(cmd.items().size());
    long bytes = inboxBytes(state);
    Lease interrupted = null;
    boolean steered = false;
    for (NotifyItem item : cmd.items()) {
      var duplicate = after.duplicateOf(item.dedupeKey(), now, settings.dedupeWindow());
      Optional<Violation> bad = unstorable(item.type(), item.payload(), item.dedupeKey());
      // Each item is decided as Notify would decide it: the agent's policy while a lease is held.
      NewInput policy = after.lease() == null ? NewInput.QUEUE : after.config().newInput();
      if (bad.isPresent()) {
        metrics.notificationRefused("invalid");
        replies.add(AgentEffects.invalid(bad.get()));
      } else if (duplicate.isPresent()) {
        metrics.notificationAccepted(true);
        replies.add(
            new Accepted(
                duplicate.get().notificationId(), after.inbox().size(), true, false, false));
      } else if (policy == NewInput.REJECT) {
        metrics.notificationRefused("turn_in_progress");
        String leaseId = after.lease().leaseId();
        NotificationRejected refused =
            new NotificationRejected(item.type(), item.dedupeKey(), leaseId, now);
        events.add(refused);
        after = NewInputState.rejected(after, item.type(), now);
        replies.add(
            new Rejected(
                ErrorCode.TURN_IN_PROGRESS,
                "agent "
                    + entity.agentId()
                    + " is running a turn and refuses new input meanwhile"));
      } else if (after.inboxFull()) {
        metrics.notificationRefused("inbox_full");
        replies.add(inboxFull(after));
      } else {
        Notification n =
            new Notification(Ids.randomId(), item.type(), item.payload(), item.dedupeKey(), now, 0);
        if (bytes + n.estimatedBytes() > settings.maxInboxBytes()) {
          metrics.notificationRefused("inbox_full");
          replies.add(inboxBytesFull());
          continue;
        }
        bytes += n.estimatedBytes();
        Lease lease = after.lease();
        after = after.notified(n, settings.dedupeWindow(), settings.maxDedupeKeys());
        events.add(new NotificationReceived(n));
        if (policy == NewInput.STEER) {
          events.add(new NotificationSteered(n.notificationId(), lease.leaseId(), now));
          after = NewInputState.steered(after, n.notificationId(), now);
          steered = true;
        } else if (policy == NewInput.INTERRUPT) {
          after = NewInputState.interrupted(after, n.notificationId(), now);
          events.add(
              new LeaseInterrupted(
                  lease.leaseId(), n.notificationId(), now, InboxSummary.of(after)));
          interrupted = lease;
        }
        replies.add(
            new Accepted(
                n.notificationId(),
                after.inbox().size(),
                false,
                policy == NewInput.STEER,
                policy == NewInput.INTERRUPT));
      }
    }
    long bytesAfter = bytes;
    AcceptedAll reply = new AcceptedAll(replies);
    if (events.isEmpty()) {
      return entity.effect().reply(cmd.replyTo(), reply);
    }
    Lease ended = interrupted;
    boolean anySteered = steered;
    return entity
        .persist(events)
        .thenRun(s -> sized(s, bytesAfter))
        .thenRun(
            s -> {
              if (ended != null) {
                turnInput.interrupted(ended);
              } else if (anySteered) {
                turnInput.steered(s);
              }
            })
        .thenReply(cmd.replyTo(), s -> reply);
  }

  /**
   * The first string of a notification the journal or the read model could not hold. The HTTP edge
   * refuses these already; this guards every other way in, since an event the journal rejects would
   * stop this entity.
   */
  private static Optional<Violation> unstorable(String type, JsonNode payload, String dedupeKey) {
    return TextRules.check("type", type, Kind.NAME)
        .or(() -> TextRules.check("dedupeKey", dedupeKey, Kind.NAME))
        .or(() -> TextRules.firstViolation(payload, "payload", Kind.TEXT));
  }

  private Rejected inboxFull(AgentState state) {
    return new Rejected(
        ErrorCode.INBOX_FULL,
        "inbox of " + entity.agentId() + " is full (" + state.config().maxInboxDepth() + ")");
  }

  private Rejected inboxBytesFull() {
    return new Rejected(
        ErrorCode.INBOX_FULL,
        "inbox of "
            + entity.agentId()
            + " holds its most bytes of unread notifications ("
            + settings.maxInboxBytes()
            + ")");
  }

  private long inboxBytes(AgentState state) {
    if (state.inbox() != sizedInbox) {
      sized(state, state.inboxBytes());
    }
    return sizedBytes;
  }

  private void sized(AgentState state, long bytes) {
    sizedInbox = state.inbox();
    sizedBytes = bytes;
  }
}
