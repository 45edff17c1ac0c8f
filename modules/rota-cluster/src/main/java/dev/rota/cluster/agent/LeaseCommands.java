package dev.rota.cluster.agent;

import dev.rota.cluster.agent.AgentEntity.Claim;
import dev.rota.cluster.agent.AgentEntity.Complete;
import dev.rota.cluster.agent.AgentEntity.Denied;
import dev.rota.cluster.agent.AgentEntity.Done;
import dev.rota.cluster.agent.AgentEntity.ExpireLease;
import dev.rota.cluster.agent.AgentEntity.Extended;
import dev.rota.cluster.agent.AgentEntity.Fail;
import dev.rota.cluster.agent.AgentEntity.Granted;
import dev.rota.cluster.agent.AgentEntity.Heartbeat;
import dev.rota.cluster.agent.AgentEntity.LeaseGone;
import dev.rota.cluster.agent.AgentEntity.LeaseLive;
import dev.rota.cluster.agent.AgentEntity.PermitAnswered;
import dev.rota.cluster.agent.AgentEntity.Release;
import dev.rota.cluster.agent.AgentEntity.Reply;
import dev.rota.cluster.agent.AgentEvents.ActivationFailed;
import dev.rota.cluster.agent.AgentEvents.Event;
import dev.rota.cluster.agent.AgentEvents.LeaseGranted;
import dev.rota.cluster.agent.AgentEvents.LeaseRenewed;
import dev.rota.cluster.health.RunnerHealth;
import dev.rota.cluster.metrics.RotaMetrics;
import dev.rota.cluster.tenant.TenantGate;
import dev.rota.core.calls.TurnSends;
import dev.rota.core.health.RunnerOutcome;
import dev.rota.core.model.AgentState;
import dev.rota.core.model.FailureAction;
import dev.rota.core.model.Lease;
import dev.rota.core.model.NewInputState;
import dev.rota.core.model.TextRules;
import dev.rota.core.model.TextRules.Kind;
import dev.rota.core.model.TextRules.Violation;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Function;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
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
  private final ClaimDecision decisions;
  private final TenantCaps caps;
  private final ActorContext<AgentEntity.Command> context;

  /** The claim waiting for its tenant gate's permit; null when none does. */
  private Claim awaiting;

  /** The lease id {@link #awaiting} would be granted. */
  private String awaitedLeaseId;

  private final TurnInput turnInput;
  private final CallSettings callSettings;

  LeaseCommands(
      AgentEffects entity,
      LeaseTimer timer,
      AgentSettings settings,
      RotaMetrics metrics,
      ActorSystem<?> system,
      TenantCaps caps,
      ActorContext<AgentEntity.Command> context,
      TurnInput turnInput,
      CallSettings callSettings) {
    this.turnInput = turnInput;
    this.callSettings = callSettings;
    this.entity = entity;
    this.caps = caps;
    this.context = context;
    this.timer = timer;
    this.settings = settings;
    this.metrics = metrics;
    this.system = system;
    this.decisions =
        new ClaimDecision(
            entity,
            settings,
            system.settings().config().getDuration("rota.runner-health.retry-avoid-window"));
  }

  ReplyEffect<Event, AgentState> onClaim(AgentState state, Claim cmd) {
    return decisions
        .decide(state, cmd.spec(), null)
        .match(
            denied -> entity.effect().reply(cmd.replyTo(), denied), grant -> onGrant(cmd, grant));
  }

  private ReplyEffect<Event, AgentState> onGrant(Claim cmd, ClaimDecision.Grant grant) {
    if (caps.capped()) {
      // The tenant's gate permits the grant first; meanwhile the agent stashes other claims.
      awaiting = cmd;
      awaitedLeaseId = grant.lease().leaseId();
      caps.acquire(context, grant.lease());
      return entity.effect().noReply();
    }
    return persistGrant(grant).thenReply(cmd.replyTo(), s -> granted(grant, s));
  }

  /** Whether a claim waits for its tenant gate's permit: other claims wait for it. */
  boolean awaitingPermit() {
    return awaiting != null;
  }

  /**
   * The tenant's gate answered (or did not in time): the claim is decided again on the state now
   * (commands other than claims went on meanwhile) and granted under the permit, or denied with the
   * gate's reason and the permit, if any, given back. Then the claims stashed meanwhile run.
   */
  ReplyEffect<Event, AgentState> onPermitAnswered(AgentState state, PermitAnswered answer) {
    if (awaiting == null || !answer.leaseId().equals(awaitedLeaseId)) {
      return entity.effect().noReply();
    }
    Claim cmd = awaiting;
    awaiting = null;
    awaitedLeaseId = null;
    if (answer.answer() instanceof TenantGate.Permitted) {
      return decisions
          .decide(state, cmd.spec(), answer.leaseId())
          .match(
              denied -> {
                caps.release(answer.leaseId(), "not granted");
                return withUnstash(entity.effect().none().thenRun(s -> cmd.replyTo().tell(denied)));
              },
              grant ->
                  withUnstash(
                      persistGrant(grant).thenRun(s -> cmd.replyTo().tell(granted(grant, s)))));
    }
    Denied denied;
    if (answer.answer() instanceof TenantGate.Refused refused) {
      denied = decisions.denied(refused.reason(), state, refused.until());
    } else {
      // The gate may have permitted after all: the permit is given back (or dropped when asked).
      caps.release(answer.leaseId(), "gate did not answer in time");
      denied = decisions.denied(TenantCaps.GATE_UNAVAILABLE, state, null);
    }
    return withUnstash(entity.effect().none().thenRun(s -> cmd.replyTo().tell(denied)));
  }

  /**
   * Every effect Pekko builds is a reply effect too; one that unstashes has no typed way to reply
   * after it, so its reply is sent by the effect's own side effect before the unstash.
   */
  @SuppressWarnings("unchecked")
  private static ReplyEffect<Event, AgentState> withUnstash(EffectBuilder<Event, AgentState> b) {
    return (ReplyEffect<Event, AgentState>) b.thenUnstashAll();
  }

  private EffectBuilder<Event, AgentState> persistGrant(ClaimDecision.Grant grant) {
    return entity.persist(new LeaseGranted(grant.lease())).thenRun(s -> timer.start(grant.lease()));
  }

  private Granted granted(ClaimDecision.Grant grant, AgentState after) {
    return new Granted(
        grant.lease(),
        grant.carried(),
        after.config(),
        grant.more(),
        entity.seqNr(),
        after.calls().owed());
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
              .thenReply(cmd.replyTo(), s -> new Extended(expiresAt, turnInput.ungiven(s)));
        });
  }

  /**
   * The turn is done: one write holds the completion, its sends, and the replies to the calls it
   * served ({@link TurnSends}), so they take effect if and only if the completion does.
   */
  ReplyEffect<Event, AgentState> onComplete(AgentState state, Complete cmd) {
    Optional<AgentEntity.Rejected> refused = CompletionSends.refusal(cmd, callSettings);
    if (refused.isPresent()) {
      return entity.effect().reply(cmd.replyTo(), refused.get());
    }
    Instant now = entity.now();
    return withLiveLease(
        state,
        cmd.leaseId(),
        cmd.runnerId(),
        cmd.replyTo(),
        now,
        lease -> {
          Optional<AgentEntity.Rejected> badDefer = CompletionSends.badDefer(state, lease, cmd);
          if (badDefer.isPresent()) {
            return entity.effect().reply(cmd.replyTo(), badDefer.get());
          }
          return entity
              .persist(
                  CompletionSends.events(
                      entity, state, lease.unseenSteered(cmd.inputSeen()), cmd, callSettings, now))
              .thenRun(s -> ended(lease, now, RunnerOutcome.Kind.COMPLETED, null))
              .thenReply(cmd.replyTo(), s -> new Done(now));
        });
  }

  ReplyEffect<Event, AgentState> onFail(AgentState state, Fail cmd) {
    return failed(
        state,
        cmd.leaseId(),
        cmd.runnerId(),
        cmd.action(),
        cmd.error(),
        cmd.snoozeSeconds(),
        cmd.inputSeen(),
        cmd.replyTo());
  }

  /**
   * A release is the failure a snooze of 0 s is: the agent is free at once, no attempt is used up
   * and the runner's health record hears nothing, and the journal holds the same {@link
   * ActivationFailed} it always held for a lease given back.
   */
  ReplyEffect<Event, AgentState> onRelease(AgentState state, Release cmd) {
    return failed(
        state,
        cmd.leaseId(),
        cmd.runnerId(),
        FailureAction.SNOOZE,
        cmd.why(),
        0,
        null,
        cmd.replyTo());
  }

  private ReplyEffect<Event, AgentState> failed(
      AgentState state,
      String leaseId,
      String runnerId,
      FailureAction action,
      String error,
      long snoozeSeconds,
      List<String> inputSeen,
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
                .persist(
                    FailedTurnEvents.failed(
                        entity.agentId(),
                        settings.maxDeadLetters(),
                        state,
                        lease,
                        action,
                        error,
                        snoozedUntil,
                        lease.unseenSteered(inputSeen),
                        now))
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
    caps.release(lease.leaseId(), "lease ended");
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
        entity.agentId(),
        new RunnerOutcome(kind, now, Duration.between(lease.grantedAt(), now), error));
  }

  /** The lease ran out: the agent's attempt is used up, and its runner's record hears of it. */
  private EffectBuilder<Event, AgentState> expire(AgentState state, Instant now) {
    Lease lease = state.lease();
    return entity
        .persist(
            FailedTurnEvents.expired(
                entity.agentId(), settings.maxDeadLetters(), state, LEASE_EXPIRED, now))
        .thenRun(s -> caps.release(lease.leaseId(), LEASE_EXPIRED))
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
      return entity
          .effect()
          .reply(
              replyTo,
              NewInputState.wasInterrupted(state, leaseId)
                  ? TurnInput.interruptedLease(leaseId)
                  : LeaseRefusals.leaseLost(leaseId));
    }
    // Checked before expiry, so that another runner's report changes nothing at all.
    if (!lease.runnerId().equals(runnerId)) {
      return entity.effect().reply(replyTo, LeaseRefusals.notHeldBy(runnerId));
    }
    if (timer.left(lease).compareTo(Duration.ZERO) <= 0) {
      return expire(state, now).thenReply(replyTo, s -> LeaseRefusals.leaseLost(leaseId));
    }
    return handler.apply(lease);
  }

  private ReplyEffect<Event, AgentState> replyIfAsked(
      EffectBuilder<Event, AgentState> effect, ActorRef<Reply> replyTo, Reply reply) {
    return replyTo == null ? effect.thenNoReply() : effect.thenReply(replyTo, s -> reply);
  }
}
