package dev.rota.cluster.agent;

import dev.rota.cluster.agent.AgentEntity.Claim;
import dev.rota.cluster.agent.AgentEntity.Complete;
import dev.rota.cluster.agent.AgentEntity.Denied;
import dev.rota.cluster.agent.AgentEntity.Done;
import dev.rota.cluster.agent.AgentEntity.ErrorCode;
import dev.rota.cluster.agent.AgentEntity.ExpireLease;
import dev.rota.cluster.agent.AgentEntity.Extended;
import dev.rota.cluster.agent.AgentEntity.Fail;
import dev.rota.cluster.agent.AgentEntity.Granted;
import dev.rota.cluster.agent.AgentEntity.Heartbeat;
import dev.rota.cluster.agent.AgentEntity.LeaseGone;
import dev.rota.cluster.agent.AgentEntity.LeaseLive;
import dev.rota.cluster.agent.AgentEntity.Rejected;
import dev.rota.cluster.agent.AgentEntity.Release;
import dev.rota.cluster.agent.AgentEntity.Reply;
import dev.rota.cluster.agent.AgentEvents.ActivationCompleted;
import dev.rota.cluster.agent.AgentEvents.ActivationFailed;
import dev.rota.cluster.agent.AgentEvents.Event;
import dev.rota.cluster.agent.AgentEvents.InboxSummary;
import dev.rota.cluster.agent.AgentEvents.LeaseExpired;
import dev.rota.cluster.agent.AgentEvents.LeaseGranted;
import dev.rota.cluster.agent.AgentEvents.LeaseRenewed;
import dev.rota.cluster.health.RunnerHealth;
import dev.rota.cluster.metrics.RotaMetrics;
import dev.rota.core.health.RunnerOutcome;
import dev.rota.core.model.ActivationKind;
import dev.rota.core.model.AgentState;
import dev.rota.core.model.DeadLetter;
import dev.rota.core.model.FailureAction;
import dev.rota.core.model.Ids;
import dev.rota.core.model.Lease;
import dev.rota.core.model.Notification;
import dev.rota.core.model.ScheduleFire;
import dev.rota.core.model.TextRules;
import dev.rota.core.model.TextRules.Kind;
import dev.rota.core.model.TextRules.Violation;
import dev.rota.core.scheduling.AgentSchedule;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Function;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.persistence.typed.javadsl.EffectBuilder;
import org.apache.pekko.persistence.typed.javadsl.ReplyEffect;

/**
 * An agent's lease commands: the claim that grants it, and the heartbeat, completion, failure,
 * release and expiry that end or extend it. Every report names the lease and its runner: a lease id
 * alone does not let anyone report on a lease (fencing).
 */
final class LeaseCommands {
  static final String LEASE_EXPIRED = "lease expired";

  private final AgentEffects entity;
  private final LeaseTimer timer;
  private final AgentSettings settings;
  private final RotaMetrics metrics;
  private final ActorSystem<?> system;
  private final Duration retryAvoidWindow;

  LeaseCommands(
      AgentEffects entity,
      LeaseTimer timer,
      AgentSettings settings,
      RotaMetrics metrics,
      ActorSystem<?> system) {
    this.entity = entity;
    this.timer = timer;
    this.settings = settings;
    this.metrics = metrics;
    this.system = system;
    this.retryAvoidWindow =
        system.settings().config().getDuration("rota.runner-health.retry-avoid-window");
  }

  ReplyEffect<Event, AgentState> onClaim(AgentState state, Claim cmd) {
    if (TextRules.problem(cmd.runnerId(), Kind.NAME).isPresent()) {
      return entity.effect().reply(cmd.replyTo(), denied("invalid_runner_id", state));
    }
    Instant now = entity.now();
    AgentState.Eligibility eligibility = state.eligibility(cmd.mode(), cmd.capabilities(), now);
    if (!eligibility.granted()) {
      return entity.effect().reply(cmd.replyTo(), denied(eligibility.deniedReason(), state));
    }
    if (!retryAvoidWindow.isZero()
        && state
            .runnerToAvoid(now.minus(retryAvoidWindow))
            .filter(cmd.runnerId()::equals)
            .isPresent()) {
      // This runner failed the agent's last attempt moments ago: another runner should try first.
      return entity.effect().reply(cmd.replyTo(), denied(AgentEntity.AVOIDING_RUNNER, state));
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
            Ids.leaseId(entity.agentId(), token),
            cmd.runnerId(),
            eligibility.kind(),
            token,
            attempt,
            now,
            now.plusSeconds(leaseSeconds),
            leaseSeconds,
            carried.stream().map(Notification::notificationId).toList(),
            fire);
    return entity
        .persist(new LeaseGranted(lease))
        .thenRun(s -> timer.start(lease))
        .thenReply(
            cmd.replyTo(), s -> new Granted(lease, carried, s.config(), more, entity.seqNr()));
  }

  private Denied denied(String reason, AgentState state) {
    return new Denied(reason, AgentSchedule.of(state), state.registered(), entity.seqNr());
  }

  ReplyEffect<Event, AgentState> onHeartbeat(AgentState state, Heartbeat cmd) {
    Instant now = entity.now();
    return withLiveLease(
        state,
        cmd.leaseId(),
        cmd.runnerId(),
        cmd.replyTo(),
        now,
        lease -> {
          Instant expiresAt = now.plusSeconds(lease.leaseSeconds());
          return entity
              .persist(new LeaseRenewed(lease.leaseId(), expiresAt, now))
              .thenRun(s -> timer.start(s.lease()))
              .thenReply(cmd.replyTo(), s -> new Extended(expiresAt));
        });
  }

  ReplyEffect<Event, AgentState> onComplete(AgentState state, Complete cmd) {
    Optional<Violation> bad = TextRules.firstViolation(cmd.result(), "result", Kind.TEXT);
    if (bad.isPresent()) {
      return entity.effect().reply(cmd.replyTo(), AgentEffects.invalid(bad.get()));
    }
    Instant now = entity.now();
    return withLiveLease(
        state,
        cmd.leaseId(),
        cmd.runnerId(),
        cmd.replyTo(),
        now,
        lease ->
            entity
                .persist(
                    new ActivationCompleted(
                        lease.leaseId(), cmd.result(), now, InboxSummary.of(state.completed(now))))
                .thenRun(s -> ended(lease, now, RunnerOutcome.Kind.COMPLETED, null))
                .thenReply(cmd.replyTo(), s -> new Done(now)));
  }

  ReplyEffect<Event, AgentState> onFail(AgentState state, Fail cmd) {
    return failed(
        state,
        cmd.leaseId(),
        cmd.runnerId(),
        cmd.action(),
        cmd.error(),
        cmd.snoozeSeconds(),
        cmd.replyTo());
  }

  /**
   * A release is the failure a snooze of 0 s is: the agent is free at once, no attempt is used up
   * and the runner's health record hears nothing, and the journal holds the same {@link
   * ActivationFailed} it always held for a lease given back.
   */
  ReplyEffect<Event, AgentState> onRelease(AgentState state, Release cmd) {
    return failed(
        state, cmd.leaseId(), cmd.runnerId(), FailureAction.SNOOZE, cmd.why(), 0, cmd.replyTo());
  }

  private ReplyEffect<Event, AgentState> failed(
      AgentState state,
      String leaseId,
      String runnerId,
      FailureAction action,
      String error,
      long snoozeSeconds,
      ActorRef<Reply> replyTo) {
    Optional<Violation> bad = TextRules.check("error", error, Kind.TEXT);
    if (bad.isPresent()) {
      return entity.effect().reply(replyTo, AgentEffects.invalid(bad.get()));
    }
    Instant now = entity.now();
    Instant snoozedUntil = action == FailureAction.SNOOZE ? now.plusSeconds(snoozeSeconds) : null;
    return withLiveLease(
        state,
        leaseId,
        runnerId,
        replyTo,
        now,
        lease ->
            entity
                .persist(failedEvent(state, lease, action, error, snoozedUntil, now))
                .thenRun(
                    s ->
                        ended(
                            lease,
                            now,
                            // A snooze is the runner deferring work, not failing it.
                            action == FailureAction.SNOOZE ? null : RunnerOutcome.Kind.FAILED,
                            error))
                .thenReply(replyTo, s -> new Done(now)));
  }

  ReplyEffect<Event, AgentState> onExpireLease(AgentState state, ExpireLease cmd) {
    Instant now = entity.now();
    Lease lease = state.lease();
    if (lease == null || !lease.leaseId().equals(cmd.leaseId())) {
      return replyIfAsked(entity.effect().none(), cmd.replyTo(), new LeaseGone(cmd.leaseId()));
    }
    Duration left = timer.left(lease);
    if (left.compareTo(Duration.ZERO) > 0) {
      timer.scheduleExpiry(left);
      return replyIfAsked(entity.effect().none(), cmd.replyTo(), new LeaseLive(left.toMillis()));
    }
    return replyIfAsked(expire(state, now), cmd.replyTo(), new Done(now));
  }

  /**
   * The runner reported the end of the activation: no expiry any more, its duration counts, and the
   * runner's health record hears how it ended ({@code kind} null: not at all).
   */
  private void ended(Lease lease, Instant now, RunnerOutcome.Kind kind, String error) {
    timer.stop();
    metrics.activationEnded(Duration.between(lease.grantedAt(), now));
    if (kind != null) {
      toRunnerHealth(lease, kind, now, error);
    }
  }

  private void toRunnerHealth(Lease lease, RunnerOutcome.Kind kind, Instant now, String error) {
    metrics.runnerActivation(
        metrics.poolLabel(lease.runnerId()), kind.name().toLowerCase(Locale.ROOT));
    RunnerHealth.report(
        system,
        lease.runnerId(),
        new RunnerOutcome(kind, now, Duration.between(lease.grantedAt(), now), error));
  }

  /** The lease ran out: the agent's attempt is used up, and its runner's record hears of it. */
  private EffectBuilder<Event, AgentState> expire(AgentState state, Instant now) {
    Lease lease = state.lease();
    return entity
        .persist(expiredEvent(state, now))
        .thenRun(s -> toRunnerHealth(lease, RunnerOutcome.Kind.EXPIRED, now, LEASE_EXPIRED));
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
      Function<Lease, ReplyEffect<Event, AgentState>> handler) {
    Lease lease = state.lease();
    if (lease == null || !lease.leaseId().equals(leaseId)) {
      return entity.effect().reply(replyTo, leaseLost(leaseId));
    }
    // Checked before expiry, so that another runner's report changes nothing at all.
    if (!lease.runnerId().equals(runnerId)) {
      return entity.effect().reply(replyTo, notHeldBy(runnerId));
    }
    if (timer.left(lease).compareTo(Duration.ZERO) <= 0) {
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

  private static List<DeadLetter> newDeadLetters(AgentState before, AgentState after) {
    return List.copyOf(
        after.deadLetters().subList(before.deadLetters().size(), after.deadLetters().size()));
  }

  private ReplyEffect<Event, AgentState> replyIfAsked(
      EffectBuilder<Event, AgentState> effect, ActorRef<Reply> replyTo, Reply reply) {
    return replyTo == null ? effect.thenNoReply() : effect.thenReply(replyTo, s -> reply);
  }

  private static Rejected notHeldBy(String runnerId) {
    return new Rejected(
        ErrorCode.LEASE_NOT_HELD,
        "the lease was granted to another runner than "
            + (runnerId == null ? "this one" : "'" + runnerId + "'"));
  }

  /** Names the lease by agent and fencing token: replies end up in logs, lease ids must not. */
  private static Rejected leaseLost(String leaseId) {
    return new Rejected(
        ErrorCode.LEASE_LOST, Ids.leaseLabel(leaseId) + " expired or was superseded");
  }
}
