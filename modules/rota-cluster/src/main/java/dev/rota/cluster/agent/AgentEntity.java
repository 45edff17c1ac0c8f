package dev.rota.cluster.agent;

import com.fasterxml.jackson.databind.JsonNode;
import dev.rota.cluster.CborSerializable;
import dev.rota.cluster.agent.AgentEvents.ActivationCompleted;
import dev.rota.cluster.agent.AgentEvents.ActivationFailed;
import dev.rota.cluster.agent.AgentEvents.AgentDeregistered;
import dev.rota.cluster.agent.AgentEvents.AgentPaused;
import dev.rota.cluster.agent.AgentEvents.AgentRegistered;
import dev.rota.cluster.agent.AgentEvents.AgentResumed;
import dev.rota.cluster.agent.AgentEvents.AgentUpdated;
import dev.rota.cluster.agent.AgentEvents.DeadLetterDiscarded;
import dev.rota.cluster.agent.AgentEvents.DeadLetterRedriven;
import dev.rota.cluster.agent.AgentEvents.Event;
import dev.rota.cluster.agent.AgentEvents.InboxSummary;
import dev.rota.cluster.agent.AgentEvents.LeaseExpired;
import dev.rota.cluster.agent.AgentEvents.LeaseGranted;
import dev.rota.cluster.agent.AgentEvents.LeaseRenewed;
import dev.rota.cluster.agent.AgentEvents.NotificationReceived;
import dev.rota.cluster.health.RunnerHealth;
import dev.rota.cluster.metrics.RotaMetrics;
import dev.rota.core.health.RunnerOutcome;
import dev.rota.core.model.ActivationKind;
import dev.rota.core.model.AgentConfig;
import dev.rota.core.model.AgentConfigPatch;
import dev.rota.core.model.AgentState;
import dev.rota.core.model.AgentSummary;
import dev.rota.core.model.DeadLetter;
import dev.rota.core.model.FailureAction;
import dev.rota.core.model.Ids;
import dev.rota.core.model.Lease;
import dev.rota.core.model.Notification;
import dev.rota.core.model.Partitions;
import dev.rota.core.model.RunnerMode;
import dev.rota.core.model.Schedule;
import dev.rota.core.model.ScheduleFire;
import dev.rota.core.model.TextRules;
import dev.rota.core.model.TextRules.Kind;
import dev.rota.core.model.TextRules.Violation;
import dev.rota.core.scheduling.AgentSchedule;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.LongSupplier;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.SupervisorStrategy;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;
import org.apache.pekko.cluster.sharding.typed.javadsl.ClusterSharding;
import org.apache.pekko.cluster.sharding.typed.javadsl.Entity;
import org.apache.pekko.cluster.sharding.typed.javadsl.EntityTypeKey;
import org.apache.pekko.persistence.typed.EventRejectedException;
import org.apache.pekko.persistence.typed.PersistenceId;
import org.apache.pekko.persistence.typed.RecoveryCompleted;
import org.apache.pekko.persistence.typed.javadsl.CommandHandlerWithReply;
import org.apache.pekko.persistence.typed.javadsl.EventHandler;
import org.apache.pekko.persistence.typed.javadsl.EventSourcedBehaviorWithEnforcedReplies;
import org.apache.pekko.persistence.typed.javadsl.ReplyEffect;
import org.apache.pekko.persistence.typed.javadsl.RetentionCriteria;
import org.apache.pekko.persistence.typed.javadsl.SignalHandler;

/**
 * The single writer for one agent: its config, inbox, dead letters and lease. Because all of an
 * agent's commands pass through here one at a time, a claim is atomic without locks: at most one
 * lease is granted at a time, and any command naming an older lease id is refused (fencing). The
 * rules themselves live in {@link AgentState}; this class validates, persists and replies.
 */
public final class AgentEntity
    extends EventSourcedBehaviorWithEnforcedReplies<AgentEntity.Command, Event, AgentState> {

  public static final EntityTypeKey<Command> ENTITY_TYPE_KEY =
      EntityTypeKey.create(Command.class, "Agent");

  private static final String EXPIRY_TIMER = "lease-expiry";
  private static final String LEASE_EXPIRED = "lease expired";

  /** The reason of a claim denied because the claiming runner failed the last attempt. */
  public static final String AVOIDING_RUNNER = "avoiding_runner";

  // ---- protocol ----

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

  public record Notify(String type, JsonNode payload, String dedupeKey, ActorRef<Reply> replyTo)
      implements Command {}

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

  /** Replies {@link Granted} or {@link Denied}. */
  public record Claim(
      String runnerId,
      RunnerMode mode,
      Set<String> capabilities,
      long leaseSeconds,
      ActorRef<Reply> replyTo)
      implements Command {}

  /**
   * Replies {@link Extended}, {@link ErrorCode#LEASE_LOST}, or {@link ErrorCode#LEASE_NOT_HELD}
   * when {@code runnerId} is not the runner the lease was granted to. The same holds for {@link
   * Complete} and {@link Fail}: a lease id alone does not let anyone report on the lease.
   */
  public record Heartbeat(String leaseId, String runnerId, ActorRef<Reply> replyTo)
      implements Command {}

  public record Complete(String leaseId, String runnerId, JsonNode result, ActorRef<Reply> replyTo)
      implements Command {}

  public record Fail(
      String leaseId,
      String runnerId,
      FailureAction action,
      String error,
      long snoozeSeconds,
      ActorRef<Reply> replyTo)
      implements Command {}

  /**
   * Expire the lease if it is still this one and over by this agent's clock: replies {@link Done}
   * (expired now), {@link LeaseLive} (not over) or {@link LeaseGone} (not the current lease, so
   * nothing to expire); replyTo may be null.
   */
  public record ExpireLease(String leaseId, ActorRef<Reply> replyTo) implements Command {}

  public record Redrive(String deadLetterId, ActorRef<Reply> replyTo) implements Command {}

  /** Remove the dead letter for good: replies {@link Done}, or {@link Rejected} not found. */
  public record Discard(String deadLetterId, ActorRef<Reply> replyTo) implements Command {}

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

  public record Accepted(String notificationId, int unread, boolean duplicate) implements Reply {}

  /** The answer to {@link GetState}. */
  public record FullState(AgentState state) implements Reply {}

  /** The answer to {@link GetRow}: the agent as of its event {@code seqNr}. */
  public record RowState(AgentSummary agent, long seqNr) implements Reply {}

  /** The answer to {@link NotifyAll}: per item, in order, {@link Accepted} or {@link Rejected}. */
  public record AcceptedAll(List<Reply> items) implements Reply {
    public AcceptedAll {
      items = List.copyOf(items);
    }
  }

  /**
   * A lease and the notifications it carries: at most {@code rota.agent.max-activation-*} of the
   * inbox, oldest first; {@code more} when some stay unread for the next turn.
   */
  public record Granted(
      Lease lease, List<Notification> notifications, AgentConfig agent, boolean more, long seqNr)
      implements Reply {
    public Granted(Lease lease, List<Notification> notifications, AgentConfig agent, boolean more) {
      this(lease, notifications, agent, more, 0);
    }
  }

  /**
   * The agent cannot give this runner work now; the reason is for logs, the schedule and the
   * sequence number for the coordinator's index (not the whole state: this crosses nodes).
   */
  public record Denied(String reason, AgentSchedule schedule, boolean registered, long seqNr)
      implements Reply {
    public Denied(String reason, AgentState state, long seqNr) {
      this(reason, AgentSchedule.of(state), state.registered(), seqNr);
    }
  }

  public record Extended(Instant expiresAt) implements Reply {}

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
    INBOX_FULL
  }

  // ---- wiring ----

  /** Starts sharding of agents on this node; the listener hears every change. */
  public static void init(
      ActorSystem<?> system, AgentSettings settings, AgentChangeListener listener) {
    ClusterSharding.get(system)
        .init(
            Entity.of(
                ENTITY_TYPE_KEY,
                ctx ->
                    ShardHomes.isProbe(ctx.getEntityId())
                        ? ShardHomes.probe()
                        : Behaviors.supervise(
                                create(
                                    ctx.getEntityId(),
                                    settings,
                                    listener,
                                    Clock.systemUTC(),
                                    System::nanoTime))
                            .onFailure(
                                EventRejectedException.class, SupervisorStrategy.restart())));
  }

  /**
   * @param clock the wall clock: the times the agent records and shows
   * @param nanoTime a monotonic clock in nanoseconds: when its lease ends (see {@link #leaseLeft})
   */
  public static Behavior<Command> create(
      String agentId,
      AgentSettings settings,
      AgentChangeListener listener,
      Clock clock,
      LongSupplier nanoTime) {
    return Behaviors.setup(
        ctx ->
            Behaviors.withTimers(
                timers ->
                    new AgentEntity(agentId, settings, listener, clock, nanoTime, ctx, timers)));
  }

  private final String agentId;
  private final Duration retryAvoidWindow;
  private final AgentSettings settings;
  private final AgentChangeListener listener;
  private final Clock clock;
  private final LongSupplier nanoTime;
  private final ActorContext<Command> context;
  private final TimerScheduler<Command> timers;
  private final Set<String> tags;
  private final RotaMetrics metrics;

  /** The lease {@link #leaseDeadline} is for; null when no lease was timed in this incarnation. */
  private String timedLeaseId;

  /** When {@link #timedLeaseId} ends, on {@link #nanoTime}. */
  private long leaseDeadline;

  /** The inbox whose size {@link #sizedBytes} is: sizes are summed again only when it changed. */
  private List<Notification> sizedInbox;

  private long sizedBytes;

  private AgentEntity(
      String agentId,
      AgentSettings settings,
      AgentChangeListener listener,
      Clock clock,
      LongSupplier nanoTime,
      ActorContext<Command> context,
      TimerScheduler<Command> timers) {
    // A write the journal fails (a database restart, the write guard after a stall) restarts the
    // agent after a back-off, commands stashed meanwhile, instead of stopping it until its next
    // message.
    super(
        PersistenceId.of(ENTITY_TYPE_KEY.name(), agentId),
        SupervisorStrategy.restartWithBackoff(Duration.ofMillis(200), Duration.ofSeconds(5), 0.2));
    this.agentId = agentId;
    this.settings = settings;
    this.listener = listener;
    this.clock = clock;
    this.nanoTime = nanoTime;
    this.context = context;
    this.timers = timers;
    this.tags = Set.of(Partitions.tag(settings.partitionOf(agentId)));
    this.metrics = RotaMetrics.get(context.getSystem());
    this.retryAvoidWindow =
        context
            .getSystem()
            .settings()
            .config()
            .getDuration("rota.runner-health.retry-avoid-window");
  }

  @Override
  public AgentState emptyState() {
    return AgentState.empty(agentId);
  }

  @Override
  public Set<String> tagsFor(Event event) {
    return tags;
  }

  /**
   * Snapshots keep recovery short; events are never deleted with them. The read-model projection
   * reads events by tag, possibly well behind the entity (a burst of notifications to one agent):
   * deleting an agent's events two snapshots back could delete events it has not read yet, and the
   * read model would silently miss them (measured: 2.5k of 200k seeded notifications lost).
   */
  @Override
  public RetentionCriteria retentionCriteria() {
    return RetentionCriteria.snapshotEvery(settings.snapshotEvery(), 2);
  }

  @Override
  public SignalHandler<AgentState> signalHandler() {
    return newSignalHandlerBuilder()
        .onSignal(
            RecoveryCompleted.instance(),
            state -> {
              if (state.lease() != null) {
                // How much of the lease was left when its last host stopped cannot be known without
                // trusting that host's wall clock; a whole lease length from now is never shorter.
                timeLease(state.lease());
              }
            })
        .build();
  }

  // ---- commands ----

  @Override
  public CommandHandlerWithReply<Command, Event, AgentState> commandHandler() {
    var builder = newCommandHandlerWithReplyBuilder().forAnyState();
    builder
        .onCommand(Register.class, this::onRegister)
        .onCommand(Get.class, this::onGet)
        .onCommand(GetState.class, (s, c) -> Effect().reply(c.replyTo(), new FullState(s)))
        .onCommand(
            GetRow.class,
            (s, c) ->
                Effect()
                    .reply(
                        c.replyTo(), new RowState(AgentSummary.of(s), lastSequenceNumber(context))))
        .onCommand(Claim.class, this::onClaim)
        .onCommand(ExpireLease.class, this::onExpireLease);
    builder
        .onCommand(
            Deregister.class, (s, c) -> ifRegistered(s, c.replyTo(), () -> onDeregister(s, c)))
        .onCommand(Notify.class, (s, c) -> ifRegistered(s, c.replyTo(), () -> onNotify(s, c), 1))
        .onCommand(
            NotifyAll.class,
            (s, c) -> ifRegistered(s, c.replyTo(), () -> onNotifyAll(s, c), c.items().size()))
        .onCommand(SetPaused.class, (s, c) -> ifRegistered(s, c.replyTo(), () -> onSetPaused(s, c)))
        .onCommand(Heartbeat.class, (s, c) -> ifRegistered(s, c.replyTo(), () -> onHeartbeat(s, c)))
        .onCommand(Complete.class, (s, c) -> ifRegistered(s, c.replyTo(), () -> onComplete(s, c)))
        .onCommand(Fail.class, (s, c) -> ifRegistered(s, c.replyTo(), () -> onFail(s, c)))
        .onCommand(Redrive.class, (s, c) -> ifRegistered(s, c.replyTo(), () -> onRedrive(s, c)))
        .onCommand(Discard.class, (s, c) -> ifRegistered(s, c.replyTo(), () -> onDiscard(s, c)));
    return builder.build();
  }

  private ReplyEffect<Event, AgentState> ifRegistered(
      AgentState state,
      ActorRef<Reply> replyTo,
      java.util.function.Supplier<ReplyEffect<Event, AgentState>> handler) {
    if (!state.registered()) {
      return Effect().reply(replyTo, notFound());
    }
    return handler.get();
  }

  /** {@link #ifRegistered} for {@code notifications} notifications, counted as refused if not. */
  private ReplyEffect<Event, AgentState> ifRegistered(
      AgentState state,
      ActorRef<Reply> replyTo,
      java.util.function.Supplier<ReplyEffect<Event, AgentState>> handler,
      int notifications) {
    if (!state.registered()) {
      for (int i = 0; i < notifications; i++) {
        metrics.notificationRefused("not_found");
      }
    }
    return ifRegistered(state, replyTo, handler);
  }

  private ReplyEffect<Event, AgentState> onRegister(AgentState state, Register cmd) {
    Optional<Violation> bad = unstorable(cmd.patch());
    if (bad.isPresent()) {
      return Effect().reply(cmd.replyTo(), invalid(bad.get()));
    }
    Instant now = now();
    if (!state.registered()) {
      AgentConfig config = cmd.patch().applyTo(AgentConfig.defaults(agentId));
      Instant nextFireAt = state.registered(config, now).nextFireAt();
      return persist(new AgentRegistered(config, now, nextFireAt))
          .thenReply(cmd.replyTo(), s -> new AgentDetails(s, true, now));
    }
    AgentConfig config = cmd.patch().applyTo(state.config());
    if (config.equals(state.config())) {
      return Effect().reply(cmd.replyTo(), new AgentDetails(state, false, now));
    }
    Instant nextFireAt = state.configured(config, now).nextFireAt();
    return persist(new AgentUpdated(config, now, nextFireAt))
        .thenReply(cmd.replyTo(), s -> new AgentDetails(s, false, now));
  }

  private ReplyEffect<Event, AgentState> onGet(AgentState state, Get cmd) {
    if (!state.registered()) {
      return Effect().reply(cmd.replyTo(), notFound());
    }
    return Effect().reply(cmd.replyTo(), new AgentDetails(state, false, now()));
  }

  private ReplyEffect<Event, AgentState> onDeregister(AgentState state, Deregister cmd) {
    if (state.lease() != null) {
      return Effect()
          .reply(
              cmd.replyTo(),
              new Rejected(ErrorCode.CONFLICT, "agent " + agentId + " holds a lease"));
    }
    Instant now = now();
    return persist(new AgentDeregistered(now)).thenReply(cmd.replyTo(), s -> new Done(now));
  }

  private ReplyEffect<Event, AgentState> onNotify(AgentState state, Notify cmd) {
    Optional<Violation> bad = unstorable(cmd.type(), cmd.payload(), cmd.dedupeKey());
    if (bad.isPresent()) {
      metrics.notificationRefused("invalid");
      return Effect().reply(cmd.replyTo(), invalid(bad.get()));
    }
    Instant now = now();
    var duplicate = state.duplicateOf(cmd.dedupeKey(), now, settings.dedupeWindow());
    if (duplicate.isPresent()) {
      metrics.notificationAccepted(true);
      return Effect()
          .reply(
              cmd.replyTo(),
              new Accepted(duplicate.get().notificationId(), state.inbox().size(), true));
    }
    if (state.inboxFull()) {
      metrics.notificationRefused("inbox_full");
      return Effect()
          .reply(
              cmd.replyTo(),
              new Rejected(
                  ErrorCode.INBOX_FULL,
                  "inbox of " + agentId + " is full (" + state.config().maxInboxDepth() + ")"));
    }
    Notification n =
        new Notification(Ids.randomId(), cmd.type(), cmd.payload(), cmd.dedupeKey(), now, 0);
    long bytesBefore = inboxBytes(state);
    long bytesAfter = bytesBefore + n.estimatedBytes();
    if (bytesAfter > settings.maxInboxBytes()) {
      metrics.notificationRefused("inbox_full");
      return Effect().reply(cmd.replyTo(), inboxBytesFull());
    }
    return persist(new NotificationReceived(n))
        .thenRun(s -> sized(s, bytesAfter))
        .thenReply(cmd.replyTo(), s -> new Accepted(n.notificationId(), s.inbox().size(), false));
  }

  private ReplyEffect<Event, AgentState> onNotifyAll(AgentState state, NotifyAll cmd) {
    Instant now = now();
    AgentState after = state;
    List<Event> events = new ArrayList<>(cmd.items().size());
    List<Reply> replies = new ArrayList<>(cmd.items().size());
    long bytes = inboxBytes(state);
    for (NotifyItem item : cmd.items()) {
      var duplicate = after.duplicateOf(item.dedupeKey(), now, settings.dedupeWindow());
      Optional<Violation> bad = unstorable(item.type(), item.payload(), item.dedupeKey());
      if (bad.isPresent()) {
        metrics.notificationRefused("invalid");
        replies.add(invalid(bad.get()));
      } else if (duplicate.isPresent()) {
        metrics.notificationAccepted(true);
        replies.add(new Accepted(duplicate.get().notificationId(), after.inbox().size(), true));
      } else if (after.inboxFull()) {
        metrics.notificationRefused("inbox_full");
        replies.add(
            new Rejected(
                ErrorCode.INBOX_FULL,
                "inbox of " + agentId + " is full (" + after.config().maxInboxDepth() + ")"));
      } else {
        Notification n =
            new Notification(Ids.randomId(), item.type(), item.payload(), item.dedupeKey(), now, 0);
        if (bytes + n.estimatedBytes() > settings.maxInboxBytes()) {
          metrics.notificationRefused("inbox_full");
          replies.add(inboxBytesFull());
          continue;
        }
        bytes += n.estimatedBytes();
        after = after.notified(n, settings.dedupeWindow(), settings.maxDedupeKeys());
        events.add(new NotificationReceived(n));
        replies.add(new Accepted(n.notificationId(), after.inbox().size(), false));
      }
    }
    long bytesAfter = bytes;
    AcceptedAll reply = new AcceptedAll(replies);
    if (events.isEmpty()) {
      return Effect().reply(cmd.replyTo(), reply);
    }
    return Effect()
        .persist(events)
        .thenRun(s -> listener.changed(s, lastSequenceNumber(context)))
        .thenRun(s -> sized(s, bytesAfter))
        .thenRun(s -> events.forEach(this::count))
        .thenReply(cmd.replyTo(), s -> reply);
  }

  private ReplyEffect<Event, AgentState> onSetPaused(AgentState state, SetPaused cmd) {
    Instant now = now();
    if (state.paused() == cmd.paused()) {
      return Effect().reply(cmd.replyTo(), new AgentDetails(state, false, now));
    }
    Event event = cmd.paused() ? new AgentPaused(now) : new AgentResumed(now);
    return persist(event).thenReply(cmd.replyTo(), s -> new AgentDetails(s, false, now));
  }

  private ReplyEffect<Event, AgentState> onClaim(AgentState state, Claim cmd) {
    if (TextRules.problem(cmd.runnerId(), Kind.NAME).isPresent()) {
      return Effect()
          .reply(
              cmd.replyTo(), new Denied("invalid_runner_id", state, lastSequenceNumber(context)));
    }
    Instant now = now();
    AgentState.Eligibility eligibility = state.eligibility(cmd.mode(), cmd.capabilities(), now);
    if (!eligibility.granted()) {
      return Effect()
          .reply(
              cmd.replyTo(),
              new Denied(
                  eligibility.deniedReason(),
                  AgentSchedule.of(state),
                  state.registered(),
                  lastSequenceNumber(context)));
    }
    if (!retryAvoidWindow.isZero()
        && state
            .runnerToAvoid(now.minus(retryAvoidWindow))
            .filter(cmd.runnerId()::equals)
            .isPresent()) {
      // This runner failed the agent's last attempt moments ago: another runner should try first.
      return Effect()
          .reply(
              cmd.replyTo(),
              new Denied(
                  AVOIDING_RUNNER,
                  AgentSchedule.of(state),
                  state.registered(),
                  lastSequenceNumber(context)));
    }
    long token = state.fencingCounter() + 1;
    long leaseSeconds =
        cmd.leaseSeconds() > 0 ? cmd.leaseSeconds() : settings.defaultLeaseSeconds();
    List<Notification> carried =
        state.nextCarried(settings.maxNotificationsPerActivation(), settings.maxActivationBytes());
    boolean more = carried.size() < state.inbox().size();
    // A scheduled turn serves the due fire (and the missed ones before it); only an agent without
    // unread notifications is granted one, so it carries none.
    ScheduleFire fire =
        eligibility.kind() == ActivationKind.SCHEDULED ? state.dueFire(now).orElse(null) : null;
    int attempt =
        fire != null
            ? state.nextScheduleAttempt()
            : carried.stream().mapToInt(Notification::attempts).max().orElse(0) + 1;
    Lease lease =
        new Lease(
            Ids.leaseId(agentId, token),
            cmd.runnerId(),
            eligibility.kind(),
            token,
            attempt,
            now,
            now.plusSeconds(leaseSeconds),
            leaseSeconds,
            carried.stream().map(Notification::notificationId).toList(),
            fire);
    return persist(new LeaseGranted(lease))
        .thenRun(s -> timeLease(lease))
        .thenReply(
            cmd.replyTo(),
            s -> new Granted(lease, carried, s.config(), more, lastSequenceNumber(context)));
  }

  private ReplyEffect<Event, AgentState> onHeartbeat(AgentState state, Heartbeat cmd) {
    Instant now = now();
    return withLiveLease(
        state,
        cmd.leaseId(),
        cmd.runnerId(),
        cmd.replyTo(),
        now,
        lease -> {
          Instant expiresAt = now.plusSeconds(lease.leaseSeconds());
          return persist(new LeaseRenewed(lease.leaseId(), expiresAt, now))
              .thenRun(s -> timeLease(s.lease()))
              .thenReply(cmd.replyTo(), s -> new Extended(expiresAt));
        });
  }

  private ReplyEffect<Event, AgentState> onComplete(AgentState state, Complete cmd) {
    Optional<Violation> bad = TextRules.firstViolation(cmd.result(), "result", Kind.TEXT);
    if (bad.isPresent()) {
      return Effect().reply(cmd.replyTo(), invalid(bad.get()));
    }
    Instant now = now();
    return withLiveLease(
        state,
        cmd.leaseId(),
        cmd.runnerId(),
        cmd.replyTo(),
        now,
        lease ->
            persist(
                    new ActivationCompleted(
                        lease.leaseId(), cmd.result(), now, InboxSummary.of(state.completed(now))))
                .thenRun(s -> ended(lease, now, RunnerOutcome.Kind.COMPLETED, null))
                .thenReply(cmd.replyTo(), s -> new Done(now)));
  }

  private ReplyEffect<Event, AgentState> onFail(AgentState state, Fail cmd) {
    Optional<Violation> bad = TextRules.check("error", cmd.error(), Kind.TEXT);
    if (bad.isPresent()) {
      return Effect().reply(cmd.replyTo(), invalid(bad.get()));
    }
    Instant now = now();
    Instant snoozedUntil =
        cmd.action() == FailureAction.SNOOZE ? now.plusSeconds(cmd.snoozeSeconds()) : null;
    return withLiveLease(
        state,
        cmd.leaseId(),
        cmd.runnerId(),
        cmd.replyTo(),
        now,
        lease ->
            persist(failedEvent(state, lease, cmd.action(), cmd.error(), snoozedUntil, now))
                .thenRun(
                    s ->
                        ended(
                            lease,
                            now,
                            // A snooze is the runner deferring work, not failing it.
                            cmd.action() == FailureAction.SNOOZE ? null : RunnerOutcome.Kind.FAILED,
                            cmd.error()))
                .thenReply(cmd.replyTo(), s -> new Done(now)));
  }

  /**
   * The runner reported the end of the activation: no expiry any more, its duration counts, and the
   * runner's health record hears how it ended ({@code kind} null: not at all).
   */
  private void ended(Lease lease, Instant now, RunnerOutcome.Kind kind, String error) {
    timers.cancel(EXPIRY_TIMER);
    metrics.activationEnded(Duration.between(lease.grantedAt(), now));
    if (kind != null) {
      toRunnerHealth(lease, kind, now, error);
    }
  }

  private void toRunnerHealth(Lease lease, RunnerOutcome.Kind kind, Instant now, String error) {
    metrics.runnerActivation(
        RunnerOutcome.poolOf(lease.runnerId()), kind.name().toLowerCase(java.util.Locale.ROOT));
    RunnerHealth.report(
        context.getSystem(),
        lease.runnerId(),
        new RunnerOutcome(kind, now, Duration.between(lease.grantedAt(), now), error));
  }

  /** The lease ran out: the agent's attempt is used up, and its runner's record hears of it. */
  private org.apache.pekko.persistence.typed.javadsl.EffectBuilder<Event, AgentState> expire(
      AgentState state, Instant now) {
    Lease lease = state.lease();
    return persist(expiredEvent(state, now))
        .thenRun(s -> toRunnerHealth(lease, RunnerOutcome.Kind.EXPIRED, now, LEASE_EXPIRED));
  }

  private ReplyEffect<Event, AgentState> onExpireLease(AgentState state, ExpireLease cmd) {
    Instant now = now();
    Lease lease = state.lease();
    if (lease == null || !lease.leaseId().equals(cmd.leaseId())) {
      return replyIfAsked(Effect().none(), cmd.replyTo(), new LeaseGone(cmd.leaseId()));
    }
    Duration left = leaseLeft(lease);
    if (left.compareTo(Duration.ZERO) > 0) {
      scheduleExpiry(left);
      return replyIfAsked(Effect().none(), cmd.replyTo(), new LeaseLive(left.toMillis()));
    }
    return replyIfAsked(expire(state, now), cmd.replyTo(), new Done(now));
  }

  private ReplyEffect<Event, AgentState> onRedrive(AgentState state, Redrive cmd) {
    if (state.deadLetter(cmd.deadLetterId()).isEmpty()) {
      return Effect()
          .reply(
              cmd.replyTo(),
              new Rejected(ErrorCode.NOT_FOUND, "no dead letter " + cmd.deadLetterId()));
    }
    Instant now = now();
    return persist(new DeadLetterRedriven(cmd.deadLetterId(), now))
        .thenReply(cmd.replyTo(), s -> new Done(now));
  }

  private ReplyEffect<Event, AgentState> onDiscard(AgentState state, Discard cmd) {
    if (state.deadLetter(cmd.deadLetterId()).isEmpty()) {
      return Effect()
          .reply(
              cmd.replyTo(),
              new Rejected(ErrorCode.NOT_FOUND, "no dead letter " + cmd.deadLetterId()));
    }
    Instant now = now();
    return persist(new DeadLetterDiscarded(cmd.deadLetterId(), now))
        .thenReply(cmd.replyTo(), s -> new Done(now));
  }

  /**
   * Runs the handler when the lease id is the current one and still live. A lease that is past its
   * expiry but not yet expired is expired now, and the caller told it lost the lease.
   */
  private ReplyEffect<Event, AgentState> withLiveLease(
      AgentState state,
      String leaseId,
      String runnerId,
      ActorRef<Reply> replyTo,
      Instant now,
      java.util.function.Function<Lease, ReplyEffect<Event, AgentState>> handler) {
    Lease lease = state.lease();
    if (lease == null || !lease.leaseId().equals(leaseId)) {
      return Effect().reply(replyTo, leaseLost(leaseId));
    }
    // Checked before expiry, so that another runner's report changes nothing at all.
    if (!lease.runnerId().equals(runnerId)) {
      return Effect().reply(replyTo, notHeldBy(runnerId));
    }
    if (leaseLeft(lease).compareTo(Duration.ZERO) <= 0) {
      return expire(state, now).thenReply(replyTo, s -> leaseLost(leaseId));
    }
    return handler.apply(lease);
  }

  private ActivationFailed failedEvent(
      AgentState state,
      Lease lease,
      FailureAction action,
      String error,
      Instant snoozedUntil,
      Instant now) {
    AgentState after = state.failed(action, error, now, snoozedUntil, "activation.failed");
    return new ActivationFailed(
        lease.leaseId(),
        action,
        error,
        snoozedUntil,
        now,
        InboxSummary.of(after),
        newDeadLetters(state, after),
        overCap(after));
  }

  private LeaseExpired expiredEvent(AgentState state, Instant now) {
    AgentState after = state.failed(FailureAction.RETRY, LEASE_EXPIRED, now, null, "lease.expired");
    return new LeaseExpired(
        state.lease().leaseId(),
        now,
        InboxSummary.of(after),
        newDeadLetters(state, after),
        overCap(after));
  }

  /** The oldest dead letters past {@code rota.agent.max-dead-letters}, to drop. */
  private List<String> overCap(AgentState after) {
    int over = after.deadLetters().size() - settings.maxDeadLetters();
    if (over <= 0) {
      return List.of();
    }
    return after.deadLetters().subList(0, over).stream().map(DeadLetter::id).toList();
  }

  // ---- what the journal and the read model can hold ----

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

  private static Optional<Violation> unstorable(AgentConfigPatch patch) {
    Optional<Violation> bad =
        TextRules.check("name", patch.name(), Kind.NAME)
            .or(() -> TextRules.firstViolation(patch.metadata(), "metadata", Kind.TEXT))
            .or(() -> Schedule.firstViolation(patch.schedules()));
    if (bad.isEmpty() && patch.capabilities() != null) {
      for (String capability : patch.capabilities()) {
        bad = TextRules.check("capabilities", capability, Kind.NAME);
        if (bad.isPresent()) {
          break;
        }
      }
    }
    return bad;
  }

  private static Rejected invalid(Violation violation) {
    return new Rejected(ErrorCode.INVALID, violation.message());
  }

  private Rejected inboxBytesFull() {
    return new Rejected(
        ErrorCode.INBOX_FULL,
        "inbox of "
            + agentId
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

  private static List<DeadLetter> newDeadLetters(AgentState before, AgentState after) {
    return List.copyOf(
        after.deadLetters().subList(before.deadLetters().size(), after.deadLetters().size()));
  }

  private org.apache.pekko.persistence.typed.javadsl.EffectBuilder<Event, AgentState> persist(
      Event event) {
    return Effect()
        .persist(event)
        .thenRun(s -> listener.changed(s, lastSequenceNumber(context)))
        .thenRun(s -> count(event));
  }

  /** This node's counters of what was persisted (docs/operations.md). */
  private void count(Event event) {
    if (event instanceof NotificationReceived) {
      metrics.notificationAccepted(false);
    } else if (event instanceof LeaseGranted e) {
      metrics.leaseGranted(e.lease().kind());
    } else if (event instanceof LeaseExpired e) {
      metrics.leaseExpired(e.deadLettered() == null ? 0 : e.deadLettered().size());
    } else if (event instanceof ActivationFailed e) {
      metrics.deadLettered(e.deadLettered() == null ? 0 : e.deadLettered().size());
    }
  }

  private ReplyEffect<Event, AgentState> replyIfAsked(
      org.apache.pekko.persistence.typed.javadsl.EffectBuilder<Event, AgentState> effect,
      ActorRef<Reply> replyTo,
      Reply reply) {
    return replyTo == null ? effect.thenNoReply() : effect.thenReply(replyTo, s -> reply);
  }

  /**
   * Starts {@code lease}'s time here: it ends a lease length from now on this node's monotonic
   * clock, whatever its {@code expiresAt} (the granting node's wall clock, shown as advice). Called
   * after a grant or a renewal was persisted, and when a recovered agent holds a lease.
   */
  private void timeLease(Lease lease) {
    timedLeaseId = lease.leaseId();
    leaseDeadline = nanoTime.getAsLong() + Duration.ofSeconds(lease.leaseSeconds()).toNanos();
    scheduleExpiry(leaseLeft(lease));
  }

  /** What is left of {@code lease} on this node's monotonic clock (zero or less: it is over). */
  private Duration leaseLeft(Lease lease) {
    if (!lease.leaseId().equals(timedLeaseId)) {
      timeLease(lease);
    }
    return Duration.ofNanos(leaseDeadline - nanoTime.getAsLong());
  }

  private void scheduleExpiry(Duration left) {
    Duration delay = left.plus(settings.expiryGrace());
    timers.startSingleTimer(
        EXPIRY_TIMER,
        new ExpireLease(timedLeaseId, null),
        delay.isNegative() ? Duration.ZERO : delay);
  }

  private Rejected notFound() {
    return new Rejected(ErrorCode.NOT_FOUND, "no agent " + agentId);
  }

  private static Rejected notHeldBy(String runnerId) {
    return new Rejected(
        ErrorCode.LEASE_NOT_HELD,
        "the lease was granted to another runner than "
            + (runnerId == null ? "this one" : "'" + runnerId + "'"));
  }

  /** Names the lease by agent and fencing token: replies end up in logs, lease ids must not. */
  private Rejected leaseLost(String leaseId) {
    return new Rejected(
        ErrorCode.LEASE_LOST, Ids.leaseLabel(leaseId) + " expired or was superseded");
  }

  private Instant now() {
    return clock.instant();
  }

  // ---- events ----

  @Override
  public EventHandler<AgentState, Event> eventHandler() {
    return newEventHandlerBuilder()
        .forAnyState()
        .onEvent(AgentRegistered.class, (s, e) -> s.registered(e.config(), e.at()))
        .onEvent(AgentUpdated.class, (s, e) -> s.configured(e.config(), e.at()))
        .onEvent(AgentDeregistered.class, (s, e) -> s.deregistered(e.at()))
        .onEvent(
            NotificationReceived.class,
            (s, e) ->
                s.notified(e.notification(), settings.dedupeWindow(), settings.maxDedupeKeys()))
        .onEvent(LeaseGranted.class, (s, e) -> s.leaseGranted(e.lease()))
        .onEvent(LeaseRenewed.class, (s, e) -> s.leaseExtended(e.expiresAt()))
        .onEvent(ActivationCompleted.class, (s, e) -> s.completed(e.at()))
        .onEvent(
            ActivationFailed.class,
            (s, e) ->
                s.failed(e.action(), e.error(), e.at(), e.snoozedUntil(), "activation.failed")
                    .withoutDeadLetters(e.droppedDeadLetters()))
        .onEvent(
            LeaseExpired.class,
            (s, e) ->
                s.failed(FailureAction.RETRY, LEASE_EXPIRED, e.at(), null, "lease.expired")
                    .withoutDeadLetters(e.droppedDeadLetters()))
        .onEvent(AgentPaused.class, (s, e) -> s.pausedAt(e.at(), true))
        .onEvent(AgentResumed.class, (s, e) -> s.pausedAt(e.at(), false))
        .onEvent(DeadLetterRedriven.class, (s, e) -> s.redriven(e.deadLetterId(), e.at()))
        .onEvent(DeadLetterDiscarded.class, (s, e) -> s.discarded(e.deadLetterId(), e.at()))
        .build();
  }
}
