package dev.rota.cluster.agent;

import com.fasterxml.jackson.databind.JsonNode;
import dev.rota.cluster.CborSerializable;
import dev.rota.core.model.AgentConfig;
import dev.rota.core.model.AgentState;
import dev.rota.core.model.CallInfo;
import dev.rota.core.model.CallState;
import dev.rota.core.model.DeadLetter;
import dev.rota.core.model.FailureAction;
import dev.rota.core.model.Lease;
import dev.rota.core.model.NewInputState;
import dev.rota.core.model.Notification;
import dev.rota.core.model.OpenCall;
import dev.rota.core.model.OutboxItem;
import java.time.Instant;
import java.util.List;

/** The events of {@link AgentEntity}: the journal schema, so change them only compatibly. */
public final class AgentEvents {
  private AgentEvents() {}

  /**
   * The state after {@code event}: what the agent's event handler applies, in recovery and after a
   * write alike, so it only calls methods on the (immutable) state.
   */
  static AgentState apply(AgentState s, Event event, AgentSettings settings) {
    if (event instanceof NotificationReceived e) {
      return s.notified(e.notification(), settings.dedupeWindow(), settings.maxDedupeKeys());
    } else if (event instanceof LeaseGranted e) {
      return s.leaseGranted(e.lease());
    } else if (event instanceof LeaseRenewed e) {
      return s.leaseExtended(e.expiresAt());
    } else if (event instanceof ActivationCompleted e) {
      AgentState seen = NewInputState.withoutSteered(s, e.unseenSteered());
      return CallState.owing(
          CallState.sent(seen.completed(e.at()), e.sends(), e.calls(), e.at()), e.owed());
    } else if (event instanceof ActivationFailed e) {
      AgentState after =
          NewInputState.withoutSteered(s, e.unseenSteered())
              .failed(e.action(), e.error(), e.at(), e.snoozedUntil(), "activation.failed")
              .withoutDeadLetters(e.droppedDeadLetters());
      return CallState.sent(after, e.replies(), List.of(), e.at());
    } else if (event instanceof LeaseExpired e) {
      AgentState after =
          s.failed(FailureAction.RETRY, LeaseCommands.LEASE_EXPIRED, e.at(), null, "lease.expired")
              .withoutDeadLetters(e.droppedDeadLetters());
      return CallState.sent(after, e.replies(), List.of(), e.at());
    } else if (event instanceof SendDelivered e) {
      return CallState.delivered(s, e.sendId(), e.at());
    } else if (event instanceof SendUndeliverable e) {
      return CallState.undeliverable(s, e.sendId(), e.reason(), e.deadLetter(), e.at());
    } else if (event instanceof CallResolved e) {
      return CallState.resolved(s, e.callId(), e.status(), e.reply(), e.at());
    } else if (event instanceof ReplyLate e) {
      return CallState.lateReply(s, e.callId(), e.status(), e.at());
    } else if (event instanceof NotificationSteered e) {
      return NewInputState.steered(s, e.notificationId(), e.at());
    } else if (event instanceof LeaseInterrupted e) {
      return NewInputState.interrupted(s, e.notificationId(), e.at());
    } else if (event instanceof NotificationRejected e) {
      return NewInputState.rejected(s, e.notificationType(), e.at());
    } else if (event instanceof AgentRegistered e) {
      return s.registered(e.config(), e.at());
    } else if (event instanceof AgentUpdated e) {
      return s.configured(e.config(), e.at());
    } else if (event instanceof AgentDeregistered e) {
      return CallState.sent(s.deregistered(e.at()), e.replies(), List.of(), e.at());
    } else if (event instanceof AgentPaused e) {
      return s.pausedAt(e.at(), true);
    } else if (event instanceof AgentResumed e) {
      return s.pausedAt(e.at(), false);
    } else if (event instanceof DeadLetterRedriven e) {
      return s.redriven(e.deadLetterId(), e.at());
    } else if (event instanceof DeadLetterDiscarded e) {
      return s.discarded(e.deadLetterId(), e.at());
    } else if (event instanceof SnapshotTaken) {
      return s;
    }
    throw new IllegalStateException("no handler for " + event.getClass().getName());
  }

  /** Every agent event; {@code at} is when it happened. */
  public sealed interface Event extends CborSerializable {
    Instant at();
  }

  /**
   * @param nextFireAt the agent's earliest schedule fire after registering (the read model cannot
   *     evaluate cron); null without schedules, and in events written before schedules existed
   */
  public record AgentRegistered(AgentConfig config, Instant at, Instant nextFireAt)
      implements Event {
    public AgentRegistered(AgentConfig config, Instant at) {
      this(config, at, null);
    }
  }

  /**
   * @param nextFireAt the agent's earliest unserved schedule fire after the update (see {@link
   *     AgentRegistered})
   */
  public record AgentUpdated(AgentConfig config, Instant at, Instant nextFireAt) implements Event {
    public AgentUpdated(AgentConfig config, Instant at) {
      this(config, at, null);
    }
  }

  /**
   * @param replies the failed replies owed to the callers of calls left unread (none in events
   *     written before calls existed)
   */
  public record AgentDeregistered(Instant at, List<OutboxItem> replies) implements Event {
    public AgentDeregistered {
      replies = replies == null ? List.of() : List.copyOf(replies);
    }

    public AgentDeregistered(Instant at) {
      this(at, List.of());
    }
  }

  public record NotificationReceived(Notification notification) implements Event {
    @Override
    public Instant at() {
      return notification.receivedAt();
    }
  }

  public record LeaseGranted(Lease lease) implements Event {
    @Override
    public Instant at() {
      return lease.grantedAt();
    }
  }

  public record LeaseRenewed(String leaseId, Instant expiresAt, Instant at) implements Event {}

  /**
   * The unread inbox after an event that removes notifications, and the earliest unserved schedule
   * fire after it (an activation's end may serve one), so the read model can follow without
   * replaying the inbox or evaluating cron.
   *
   * @param nextFireAt null without schedules, and in events written before schedules existed
   */
  public record InboxSummary(int unread, Instant oldestUnreadAt, Instant nextFireAt) {
    public InboxSummary(int unread, Instant oldestUnreadAt) {
      this(unread, oldestUnreadAt, null);
    }

    static InboxSummary of(AgentState state) {
      return new InboxSummary(
          state.inbox().size(), state.oldestUnreadAt().orElse(null), state.nextFireAt());
    }
  }

  /** An event that ends an activation: the lease is gone and the inbox may have shrunk. */
  public sealed interface ActivationEnded extends Event {
    String leaseId();

    InboxSummary inboxAfter();

    /** Notifications this event moved to the dead letters. */
    List<DeadLetter> deadLettered();

    /**
     * Dead letters (ids) this event dropped, oldest first, to keep the agent within {@code
     * rota.agent.max-dead-letters}.
     */
    default List<String> droppedDeadLetters() {
      return List.of();
    }
  }

  /**
   * @param sends what the turn owes others, delivered after this event is durable: its sends, and
   *     the replies to the calls it served (none in events written before sends existed)
   * @param calls the calls its sends opened
   */
  public record ActivationCompleted(
      String leaseId,
      JsonNode result,
      Instant at,
      InboxSummary inboxAfter,
      List<OutboxItem> sends,
      List<OpenCall> calls,
      List<CallInfo> owed,
      List<String> unseenSteered)
      implements ActivationEnded {
    /**
     * {@code owed}: every call the agent owes after the turn (it deferred them); {@code
     * unseenSteered}: the notifications steered into the lease its runner was not given, which stay
     * unread. None of either in events written before they existed.
     */
    public ActivationCompleted {
      sends = sends == null ? List.of() : List.copyOf(sends);
      calls = calls == null ? List.of() : List.copyOf(calls);
      owed = owed == null ? List.of() : List.copyOf(owed);
      unseenSteered = unseenSteered == null ? List.of() : List.copyOf(unseenSteered);
    }

    public ActivationCompleted(
        String leaseId,
        JsonNode result,
        Instant at,
        InboxSummary inboxAfter,
        List<OutboxItem> sends,
        List<OpenCall> calls,
        List<CallInfo> owed) {
      this(leaseId, result, at, inboxAfter, sends, calls, owed, List.of());
    }

    public ActivationCompleted(
        String leaseId,
        JsonNode result,
        Instant at,
        InboxSummary inboxAfter,
        List<OutboxItem> sends,
        List<OpenCall> calls) {
      this(leaseId, result, at, inboxAfter, sends, calls, List.of(), List.of());
    }

    public ActivationCompleted(
        String leaseId, JsonNode result, Instant at, InboxSummary inboxAfter) {
      this(leaseId, result, at, inboxAfter, List.of(), List.of(), List.of(), List.of());
    }

    @Override
    public List<DeadLetter> deadLettered() {
      return List.of();
    }
  }

  public record ActivationFailed(
      String leaseId,
      FailureAction action,
      String error,
      Instant snoozedUntil,
      Instant at,
      InboxSummary inboxAfter,
      List<DeadLetter> deadLettered,
      List<String> droppedDeadLetters,
      List<OutboxItem> replies,
      List<String> unseenSteered)
      implements ActivationEnded {
    public ActivationFailed {
      // Events written before the dead-letter cap, calls, or the runner's cursor on new input have
      // no such field.
      droppedDeadLetters = droppedDeadLetters == null ? List.of() : List.copyOf(droppedDeadLetters);
      replies = replies == null ? List.of() : List.copyOf(replies);
      unseenSteered = unseenSteered == null ? List.of() : List.copyOf(unseenSteered);
    }

    public ActivationFailed(
        String leaseId,
        FailureAction action,
        String error,
        Instant snoozedUntil,
        Instant at,
        InboxSummary inboxAfter,
        List<DeadLetter> deadLettered,
        List<String> droppedDeadLetters,
        List<OutboxItem> replies) {
      this(
          leaseId,
          action,
          error,
          snoozedUntil,
          at,
          inboxAfter,
          deadLettered,
          droppedDeadLetters,
          replies,
          List.of());
    }

    public ActivationFailed(
        String leaseId,
        FailureAction action,
        String error,
        Instant snoozedUntil,
        Instant at,
        InboxSummary inboxAfter,
        List<DeadLetter> deadLettered) {
      this(
          leaseId, action, error, snoozedUntil, at, inboxAfter, deadLettered, List.of(), List.of());
    }
  }

  /**
   * The runner stopped heartbeating: counts as a retry.
   *
   * @param replies the failed replies owed for dead-lettered notifications that were calls
   */
  public record LeaseExpired(
      String leaseId,
      Instant at,
      InboxSummary inboxAfter,
      List<DeadLetter> deadLettered,
      List<String> droppedDeadLetters,
      List<OutboxItem> replies)
      implements ActivationEnded {
    public LeaseExpired {
      droppedDeadLetters = droppedDeadLetters == null ? List.of() : List.copyOf(droppedDeadLetters);
      replies = replies == null ? List.of() : List.copyOf(replies);
    }

    public LeaseExpired(
        String leaseId,
        Instant at,
        InboxSummary inboxAfter,
        List<DeadLetter> deadLettered,
        List<String> droppedDeadLetters) {
      this(leaseId, at, inboxAfter, deadLettered, droppedDeadLetters, List.of());
    }

    public LeaseExpired(
        String leaseId, Instant at, InboxSummary inboxAfter, List<DeadLetter> deadLettered) {
      this(leaseId, at, inboxAfter, deadLettered, List.of());
    }
  }

  /**
   * The notification just received (the {@link NotificationReceived} before this one, in the same
   * write) joined the running lease {@code leaseId}.
   */
  public record NotificationSteered(String notificationId, String leaseId, Instant at)
      implements Event {}

  /**
   * The notification just received (the {@link NotificationReceived} before this one, in the same
   * write) ended the running lease: its notifications stay unread, their attempts untouched.
   */
  public record LeaseInterrupted(
      String leaseId, String notificationId, Instant at, InboxSummary inboxAfter)
      implements ActivationEnded {
    @Override
    public List<DeadLetter> deadLettered() {
      return List.of();
    }
  }

  /**
   * A notification refused because a turn was running; only this record of it is kept (for the
   * history and the events stream), not the notification.
   */
  public record NotificationRejected(
      String notificationType, String dedupeKey, String leaseId, Instant at) implements Event {}

  public record AgentPaused(Instant at) implements Event {}

  public record AgentResumed(Instant at) implements Event {}

  /**
   * Changes nothing: written when journal retention asks for a snapshot (decision 124), which
   * {@code AgentBehavior.shouldSnapshot} takes right after it.
   */
  public record SnapshotTaken(Instant at) implements Event {}

  public record DeadLetterRedriven(String deadLetterId, Instant at) implements Event {}

  /** An admin removed the dead letter for good; its notification is not delivered. */
  public record DeadLetterDiscarded(String deadLetterId, Instant at) implements Event {}

  /** The target accepted outbox item {@code sendId} (or had it already: a duplicate). */
  public record SendDelivered(String sendId, String targetKey, Instant at) implements Event {}

  /**
   * Outbox item {@code sendId} is given up ({@code reason}: its target does not exist, or refused
   * it past {@code rota.calls.delivery-timeout}). A plain send becomes the sender's dead letter
   * {@code deadLetter}; for a call, a {@link CallResolved} in the same write answers it failed.
   */
  public record SendUndeliverable(
      String sendId, String targetKey, String reason, DeadLetter deadLetter, Instant at)
      implements Event {}

  /**
   * Call {@code callId} of this agent has its reply ({@code status}: answered, failed or timedOut),
   * the notification {@code reply}: into the inbox now, or held until its group has every reply.
   *
   * @param toInbox how many notifications this event added to the inbox (a group's replies come
   *     together), for the read model
   */
  public record CallResolved(
      String callId, String status, Notification reply, int toInbox, Instant at) implements Event {}

  /** A reply came for a call no longer open (it timed out): kept in the history, not delivered. */
  public record ReplyLate(String callId, String status, Instant at) implements Event {}
}
