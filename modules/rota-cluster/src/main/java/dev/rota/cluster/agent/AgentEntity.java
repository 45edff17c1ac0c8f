package dev.rota.cluster.agent;

import com.fasterxml.jackson.annotation.JsonUnwrapped;
import com.fasterxml.jackson.databind.JsonNode;
import dev.rota.cluster.CborSerializable;
import dev.rota.cluster.tenant.Permits;
import dev.rota.cluster.tenant.TenantGate;
import dev.rota.core.model.AgentConfig;
import dev.rota.core.model.AgentConfigPatch;
import dev.rota.core.model.AgentState;
import dev.rota.core.model.AgentSummary;
import dev.rota.core.model.CallInfo;
import dev.rota.core.model.ClaimSpec;
import dev.rota.core.model.FailureAction;
import dev.rota.core.model.Lease;
import dev.rota.core.model.NewInput;
import dev.rota.core.model.Notification;
import dev.rota.core.model.Send;
import dev.rota.core.scheduling.AgentSchedule;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.function.LongSupplier;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.cluster.sharding.typed.javadsl.EntityTypeKey;

/**
 * The single writer for one agent: its config, inbox, dead letters and lease. Because all of an
 * agent's commands pass through here one at a time, a claim is atomic without locks: at most one
 * lease is granted at a time, and any command naming an older lease id is refused (fencing). The
 * rules themselves live in {@link AgentState}; the agent validates, persists and replies.
 *
 * <p>This file holds the agent's protocol and wiring; its commands are handled by group: {@link
 * AdminCommands} (the agent's own life and dead letters), {@link InboxCommands} (notifications) and
 * {@link LeaseCommands} (claims and the reports on a lease), with the lease's time kept by {@link
 * LeaseTimer}; {@link AgentCommandHandler} routes each command to its group. The events and how
 * they apply are in {@link AgentEvents}, the event-sourced behaviour itself in {@link
 * AgentBehavior}.
 */
public final class AgentEntity {

  public static final EntityTypeKey<Command> ENTITY_TYPE_KEY =
      EntityTypeKey.create(Command.class, "Agent");

  /** The reason of a claim denied because the claiming runner failed the last attempt. */
  public static final String AVOIDING_RUNNER = "avoiding_runner";

  /** The reason of a claim denied because the agent's tenant holds its most leases at once. */
  public static final String TENANT_CAP = Permits.TENANT_CAP;

  /** The reason of a claim denied because the agent's tenant had its most grants this minute. */
  public static final String TENANT_RATE = Permits.TENANT_RATE;

  /** The reason of a claim denied because the tenant's gate did not answer in time. */
  public static final String TENANT_GATE_UNAVAILABLE = TenantCaps.GATE_UNAVAILABLE;

  /** Every command of an agent. */
  public sealed interface Command extends CborSerializable {}

  /** Register (creates) or update (patches) the agent. Replies {@link AgentDetails}. */
  public record Register(AgentConfigPatch patch, ActorRef<Reply> replyTo) implements Command {}

  public record Get(ActorRef<Reply> replyTo) implements Command {}

  /**
   * Replies {@link FullState}: the whole state, inbox and dead letters included, for diagnostics
   * and tests on the agent's own node. It can exceed Artery's frame size: never ask it across
   * nodes; {@link Get} answers the bounded view.
   */
  public record GetState(ActorRef<Reply> replyTo) implements Command {}

  /** Replies {@link RowState}: what the read model's row of this agent should hold. */
  public record GetRow(ActorRef<Reply> replyTo) implements Command {}

  /** Replies {@link Done}; {@link ErrorCode#CONFLICT} while leased. */
  public record Deregister(ActorRef<Reply> replyTo) implements Command {}

  /**
   * One notification; {@code newInput} (null: the agent's) decides what it does to a turn; {@code
   * call} (null: none) when it is a call, whose reply the turn that carries it sends.
   */
  public record Notify(
      String type,
      JsonNode payload,
      String dedupeKey,
      NewInput newInput,
      CallInfo call,
      ActorRef<Reply> replyTo)
      implements Command {
    public Notify(
        String type,
        JsonNode payload,
        String dedupeKey,
        NewInput newInput,
        ActorRef<Reply> replyTo) {
      this(type, payload, dedupeKey, newInput, null, replyTo);
    }

    public Notify(String type, JsonNode payload, String dedupeKey, ActorRef<Reply> replyTo) {
      this(type, payload, dedupeKey, null, null, replyTo);
    }
  }

  /**
   * The reply to call {@code callId} this agent made ({@link dev.rota.core.model.Replies}): into
   * the inbox, held for its group, or, for a call no longer open, kept in the history only. Replies
   * {@link Done}.
   */
  public record DeliverReply(
      String callId, String status, JsonNode payload, ActorRef<Reply> replyTo) implements Command {}

  /** The target of outbox item {@code sendId} answered ({@link SendDelivery}); the agent's own. */
  record SendAnswered(String sendId, SendDelivery.Outcome outcome, String detail)
      implements Command {}

  /** Try outbox item {@code sendId} again (the agent's own timer). */
  record RetrySend(String sendId) implements Command {}

  /**
   * Deliver what the agent owes others (its outbox): the outbox sweeper's wake-up for an agent
   * whose node died before it delivered. No reply; harmless when delivery is under way.
   */
  public enum DeliverOwed implements Command {
    INSTANCE
  }

  /** A call's deadline passed (the agent's own timer). */
  enum CallsDue implements Command {
    INSTANCE
  }

  /**
   * Several notifications for this agent at once (an import, a backlog): each item is decided as
   * {@link Notify} would decide it, in order, and all accepted ones are persisted in one atomic
   * write. Replies {@link AcceptedAll} with one {@link Accepted} or {@link Rejected} per item.
   */
  public record NotifyAll(List<NotifyItem> items, ActorRef<Reply> replyTo) implements Command {
    public NotifyAll {
      items = List.copyOf(items);
    }
  }

  /** One notification of a {@link NotifyAll}. */
  public record NotifyItem(String type, JsonNode payload, String dedupeKey)
      implements CborSerializable {}

  public record SetPaused(boolean paused, ActorRef<Reply> replyTo) implements Command {}

  /**
   * Replies {@link Granted} or {@link Denied}; {@code spec} is flat on the wire beside {@code
   * replyTo} (decision 133).
   */
  public record Claim(@JsonUnwrapped ClaimSpec spec, ActorRef<Reply> replyTo) implements Command {}

  /** Journal retention (decision 124): persists {@code SnapshotTaken}, replies {@link Done}. */
  public record Snapshot(ActorRef<Reply> replyTo) implements Command {}

  /**
   * Replies {@link Extended}, {@link ErrorCode#LEASE_LOST}, or {@link ErrorCode#LEASE_NOT_HELD}
   * when {@code runnerId} is not the runner the lease was granted to. The same holds for {@link
   * Complete} and {@link Fail}: a lease id alone does not let anyone report on the lease.
   */
  public record Heartbeat(String leaseId, String runnerId, ActorRef<Reply> replyTo)
      implements Command {}

  /**
   * The turn is done; {@code sends} (possibly empty) are delivered if and only if this completion
   * is written, in the same event. The calls named in {@code defer} (carried by the turn or owed
   * from an earlier one) are not answered now but stay owed; every other call is answered with
   * {@code result}. {@code inputSeen} is the runner's cursor on new input: steered notifications it
   * does not name stay unread for the next turn (null: the runner keeps no cursor, all are read).
   */
  public record Complete(
      String leaseId,
      String runnerId,
      JsonNode result,
      List<Send> sends,
      List<String> defer,
      List<String> inputSeen,
      ActorRef<Reply> replyTo)
      implements Command {
    public Complete {
      sends = sends == null ? List.of() : List.copyOf(sends);
      defer = defer == null ? List.of() : List.copyOf(defer);
      inputSeen = inputSeen == null ? null : List.copyOf(inputSeen);
    }

    public Complete(
        String leaseId,
        String runnerId,
        JsonNode result,
        List<Send> sends,
        ActorRef<Reply> replyTo) {
      this(leaseId, runnerId, result, sends, List.of(), null, replyTo);
    }

    public Complete(String leaseId, String runnerId, JsonNode result, ActorRef<Reply> replyTo) {
      this(leaseId, runnerId, result, List.of(), List.of(), null, replyTo);
    }
  }

  /** The lease's runner waits up to {@code waitMillis} for {@link NewInputs}. */
  public record AwaitInput(
      String leaseId, String runnerId, long waitMillis, ActorRef<Reply> replyTo)
      implements Command {}

  /** The wait of an {@link AwaitInput} is over (the agent's own timer). */
  record InputWaitOver(long waiter) implements Command {}

  /** The turn failed; {@code inputSeen} as for {@link Complete}. */
  public record Fail(
      String leaseId,
      String runnerId,
      FailureAction action,
      String error,
      long snoozeSeconds,
      List<String> inputSeen,
      ActorRef<Reply> replyTo)
      implements Command {}

  /**
   * Give the lease back unused: its runner never received it, or stops before it started on it. The
   * agent is free at once and no attempt is used up; replies as {@link Fail} does. Every give-back
   * of a lease sends this command.
   */
  public record Release(String leaseId, String runnerId, String why, ActorRef<Reply> replyTo)
      implements Command {
    /** Releases the lease of {@code granted}, as its own runner. */
    public static Release of(Granted granted, String why, ActorRef<Reply> replyTo) {
      return new Release(granted.lease().leaseId(), granted.lease().runnerId(), why, replyTo);
    }
  }

  /**
   * Expire the lease if it is still this one and over by this agent's clock: replies {@link Done}
   * (expired now), {@link LeaseLive} (not over) or {@link LeaseGone} (not the current lease, so
   * nothing to expire); replyTo may be null.
   */
  public record ExpireLease(String leaseId, ActorRef<Reply> replyTo) implements Command {}

  public record Redrive(String deadLetterId, ActorRef<Reply> replyTo) implements Command {}

  /** Remove the dead letter for good: replies {@link Done}, or {@link Rejected} not found. */
  public record Discard(String deadLetterId, ActorRef<Reply> replyTo) implements Command {}

  /**
   * The tenant gate's answer to the agent's question for a permit for lease {@code leaseId} ({@link
   * TenantCaps}); {@code answer} null when the gate did not answer in time. The agent's own
   * message.
   */
  public record PermitAnswered(String leaseId, TenantGate.Answer answer) implements Command {}

  /** Every reply of an agent. */
  public sealed interface Reply extends CborSerializable {}

  /**
   * The agent as it is now, without its inbox and dead letters themselves (bounded, to cross
   * nodes); {@code created} when this command registered it.
   */
  public record AgentDetails(AgentSummary agent, boolean created, Instant at) implements Reply {
    public AgentDetails(AgentState state, boolean created, Instant at) {
      this(AgentSummary.of(state), created, at);
    }
  }

  /** Accepted; {@code steered} into the running turn, or it {@code interrupted} it. */
  public record Accepted(
      String notificationId, int unread, boolean duplicate, boolean steered, boolean interrupted)
      implements Reply {}

  /** Steered notifications the lease's runner had not been given, or that it was interrupted. */
  public record NewInputs(List<Notification> notifications, boolean interrupted) implements Reply {}

  /** The answer to {@link GetState}. */
  public record FullState(AgentState state) implements Reply {}

  /** The answer to {@link GetRow}: the agent as of its event {@code seqNr}. */
  public record RowState(AgentSummary agent, long seqNr) implements Reply {}

  /** The answer to {@link NotifyAll}: per item, in order, {@link Accepted} or {@link Rejected}. */
  public record AcceptedAll(@BatchReplies List<Reply> items) implements Reply {
    public AcceptedAll {
      items = List.copyOf(items);
    }
  }

  /**
   * A lease and the notifications it carries: at most {@code rota.agent.max-activation-*} of the
   * inbox, oldest first; {@code more} when some stay unread for the next turn.
   */
  public record Granted(
      Lease lease,
      List<Notification> notifications,
      AgentConfig agent,
      boolean more,
      long seqNr,
      List<CallInfo> owes)
      implements Reply {
    /** {@code owes}: the calls earlier turns deferred, which this turn may answer too. */
    public Granted {
      owes = owes == null ? List.of() : List.copyOf(owes);
    }

    public Granted(Lease lease, List<Notification> notifications, AgentConfig agent, boolean more) {
      this(lease, notifications, agent, more, 0, List.of());
    }
  }

  /**
   * The agent cannot give this runner work now; the reason is for logs, the schedule and the
   * sequence number for the coordinator's index (not the whole state: this crosses nodes). A denial
   * for the agent's tenant ({@link #TENANT_CAP}, {@link #TENANT_RATE}, {@link
   * #TENANT_GATE_UNAVAILABLE}) says {@code until} when time alone ends it (null when unknown).
   */
  public record Denied(
      String reason, AgentSchedule schedule, boolean registered, long seqNr, Instant until)
      implements Reply {
    public Denied(String reason, AgentSchedule schedule, boolean registered, long seqNr) {
      this(reason, schedule, registered, seqNr, null);
    }

    /** Whether the agent's tenant, not the agent, turned the claim away. */
    public boolean byTenant() {
      return TENANT_CAP.equals(reason)
          || TENANT_RATE.equals(reason)
          || TENANT_GATE_UNAVAILABLE.equals(reason);
    }
  }

  /** The lease runs until {@code expiresAt}; {@code notifications} steered since last told. */
  public record Extended(Instant expiresAt, List<Notification> notifications) implements Reply {}

  public record Done(Instant at) implements Reply {}

  /**
   * The answer to {@link ExpireLease} for a lease that is current and not over by this agent's
   * clock: {@code leftMillis} remain. The agent expires it itself when they have passed.
   */
  public record LeaseLive(long leftMillis) implements Reply {}

  /** The answer to {@link ExpireLease} for a lease that is not (or no longer) the agent's. */
  public record LeaseGone(String leaseId) implements Reply {}

  public record Rejected(ErrorCode code, String message) implements Reply {}

  /** The errors of the API (docs/api.md) that an agent itself can decide. */
  public enum ErrorCode {
    /** The command carries something the journal or the read model cannot hold. */
    INVALID,
    NOT_FOUND,
    CONFLICT,
    LEASE_LOST,
    /** The lease is live but was granted to another runner than the one reporting on it. */
    LEASE_NOT_HELD,
    INBOX_FULL,
    LEASE_INTERRUPTED,
    TURN_IN_PROGRESS
  }

  /**
   * @param clock the wall clock: the times the agent records and shows
   * @param nanoTime a monotonic clock in nanoseconds: when its lease ends ({@link LeaseTimer})
   */
  public static Behavior<Command> create(
      String agentId,
      AgentSettings settings,
      AgentChangeListener listener,
      Clock clock,
      LongSupplier nanoTime) {
    return Behaviors.setup(
        ctx ->
            create(agentId, settings, listener, clock, nanoTime, Mailbox.sharded(ctx.getSystem())));
  }

  /**
   * @param mailbox where the agent's sends and replies go ({@link Mailbox#sharded} in a cluster)
   */
  public static Behavior<Command> create(
      String agentId,
      AgentSettings settings,
      AgentChangeListener listener,
      Clock clock,
      LongSupplier nanoTime,
      Mailbox mailbox) {
    return Behaviors.setup(
        ctx ->
            Behaviors.withTimers(
                timers ->
                    new AgentBehavior(
                        agentId, settings, listener, clock, nanoTime, mailbox, ctx, timers)));
  }
}
