package dev.rota.cluster.agent;

import dev.rota.cluster.agent.AgentEvents.ActivationFailed;
import dev.rota.cluster.agent.AgentEvents.InboxSummary;
import dev.rota.cluster.agent.AgentEvents.LeaseExpired;
import dev.rota.core.calls.TurnSends;
import dev.rota.core.model.AgentState;
import dev.rota.core.model.DeadLetter;
import dev.rota.core.model.FailureAction;
import dev.rota.core.model.Lease;
import dev.rota.core.model.NewInputState;
import java.time.Instant;
import java.util.List;

/**
 * The event of a turn that did not complete, failed by its runner or expired: the inbox after it,
 * the notifications it dead-lettered (with the failed replies their calls get) and the oldest dead
 * letters past {@code rota.agent.max-dead-letters}, to drop. A turn that does not complete answers
 * no call it owes. Steered notifications its runner was not given leave a failed lease first: they
 * stay unread, with no attempt counted.
 */
final class FailedTurnEvents {
  private FailedTurnEvents() {}

  static ActivationFailed failed(
      String agentId,
      int maxDeadLetters,
      AgentState state,
      Lease lease,
      FailureAction action,
      String error,
      Instant snoozedUntil,
      List<String> unseenSteered,
      Instant now) {
    AgentState after =
        NewInputState.withoutSteered(state, unseenSteered)
            .failed(action, error, now, snoozedUntil, "activation.failed");
    List<DeadLetter> dead = newDeadLetters(state, after);
    return new ActivationFailed(
        lease.leaseId(),
        action,
        error,
        snoozedUntil,
        now,
        InboxSummary.of(after),
        dead,
        overCap(after, maxDeadLetters),
        TurnSends.deadLettered(agentId, dead, now),
        unseenSteered);
  }

  static LeaseExpired expired(
      String agentId, int maxDeadLetters, AgentState state, String error, Instant now) {
    AgentState after = state.failed(FailureAction.RETRY, error, now, null, "lease.expired");
    List<DeadLetter> dead = newDeadLetters(state, after);
    return new LeaseExpired(
        state.lease().leaseId(),
        now,
        InboxSummary.of(after),
        dead,
        overCap(after, maxDeadLetters),
        TurnSends.deadLettered(agentId, dead, now));
  }

  /** The oldest dead letters past {@code maxDeadLetters}, to drop. */
  private static List<String> overCap(AgentState after, int maxDeadLetters) {
    int over = after.deadLetters().size() - maxDeadLetters;
    if (over <= 0) {
      return List.of();
    }
    return after.deadLetters().subList(0, over).stream().map(DeadLetter::id).toList();
  }

  private static List<DeadLetter> newDeadLetters(AgentState before, AgentState after) {
    return List.copyOf(
        after.deadLetters().subList(before.deadLetters().size(), after.deadLetters().size()));
  }
}
