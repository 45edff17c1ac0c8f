package dev.rota.cluster.agent;

import dev.rota.cluster.agent.AgentEntity.Denied;
import dev.rota.core.model.ActivationKind;
import dev.rota.core.model.AgentState;
import dev.rota.core.model.ClaimSpec;
import dev.rota.core.model.Ids;
import dev.rota.core.model.Lease;
import dev.rota.core.model.Notification;
import dev.rota.core.model.ScheduleFire;
import dev.rota.core.model.TextRules;
import dev.rota.core.model.TextRules.Kind;
import dev.rota.core.scheduling.AgentSchedule;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.function.Function;

/**
 * How an agent decides a claim: denied (and why), or the lease it would grant with the
 * notifications it carries. Decided before a grant is persisted, and again, on the same state, when
 * the tenant's gate permitted it ({@link LeaseCommands}).
 */
final class ClaimDecision {
  private final AgentEffects entity;
  private final AgentSettings settings;
  private final Duration retryAvoidWindow;

  ClaimDecision(AgentEffects entity, AgentSettings settings, Duration retryAvoidWindow) {
    this.entity = entity;
    this.settings = settings;
    this.retryAvoidWindow = retryAvoidWindow;
  }

  /** What a claim is decided to: a {@link Denial} or a {@link Grant}, nothing else. */
  sealed interface Outcome {
    /** {@code onDenial} or {@code onGrant}, whichever this outcome is, applied to it. */
    <R> R match(Function<Denied, R> onDenial, Function<Grant, R> onGrant);
  }

  /** The claim is denied; {@code reply} is the answer as it is sent. */
  record Denial(Denied reply) implements Outcome {
    @Override
    public <R> R match(Function<Denied, R> onDenial, Function<Grant, R> onGrant) {
      return onDenial.apply(reply);
    }
  }

  /** A lease to grant, with the notifications it carries. */
  record Grant(Lease lease, List<Notification> carried, boolean more) implements Outcome {
    @Override
    public <R> R match(Function<Denied, R> onDenial, Function<Grant, R> onGrant) {
      return onGrant.apply(this);
    }
  }

  /**
   * The claim decided on {@code state} now: a {@link Denial} or a {@link Grant} of a lease with id
   * {@code leaseId} (the one its tenant's gate permitted: the state has not changed since it was
   * asked for, so its fencing token is the same), or a new id when null.
   */
  Outcome decide(AgentState state, ClaimSpec claim, String leaseId) {
    if (TextRules.problem(claim.runnerId(), Kind.NAME).isPresent()) {
      return new Denial(denied("invalid_runner_id", state));
    }
    Instant now = entity.now();
    AgentState.Eligibility eligibility = state.eligibility(claim.mode(), claim.capabilities(), now);
    if (!eligibility.granted()) {
      return new Denial(denied(eligibility.deniedReason(), state));
    }
    if (!retryAvoidWindow.isZero()
        && state
            .runnerToAvoid(now.minus(retryAvoidWindow))
            .filter(claim.runnerId()::equals)
            .isPresent()) {
      // This runner failed the agent's last attempt moments ago: another runner should try first.
      return new Denial(denied(AgentEntity.AVOIDING_RUNNER, state));
    }
    long token = state.fencingCounter() + 1;
    long leaseSeconds =
        claim.leaseSeconds() > 0 ? claim.leaseSeconds() : settings.defaultLeaseSeconds();
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
            leaseId != null ? leaseId : Ids.leaseId(entity.agentId(), token),
            claim.runnerId(),
            eligibility.kind(),
            token,
            attempt,
            now,
            now.plusSeconds(leaseSeconds),
            leaseSeconds,
            carried.stream().map(Notification::notificationId).toList(),
            fire);
    return new Grant(lease, carried, more);
  }

  Denied denied(String reason, AgentState state, Instant until) {
    return new Denied(reason, AgentSchedule.of(state), state.registered(), entity.seqNr(), until);
  }

  Denied denied(String reason, AgentState state) {
    return new Denied(reason, AgentSchedule.of(state), state.registered(), entity.seqNr());
  }
}
