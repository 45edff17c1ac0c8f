package dev.rota.cluster.agent;

import dev.rota.cluster.agent.AgentEntity.Complete;
import dev.rota.cluster.agent.AgentEvents.ActivationCompleted;
import dev.rota.cluster.agent.AgentEvents.CallResolved;
import dev.rota.cluster.agent.AgentEvents.Event;
import dev.rota.cluster.agent.AgentEvents.InboxSummary;
import dev.rota.core.calls.TurnSends;
import dev.rota.core.model.AgentState;
import dev.rota.core.model.CallState;
import dev.rota.core.model.Ids;
import dev.rota.core.model.Lease;
import dev.rota.core.model.NewInputState;
import dev.rota.core.model.Notification;
import dev.rota.core.model.TextRules;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The events of a completion: {@link ActivationCompleted} with what the turn owes others, and a
 * {@link CallResolved} for each call answered at once (too deep), all in one write.
 */
final class CompletionSends {
  private CompletionSends() {}

  /**
   * Why the completion cannot be written (a result or a send the journal could not hold, or more
   * sends than a turn may carry), as the agent's 400; empty when it can.
   */
  static Optional<AgentEntity.Rejected> refusal(Complete cmd, CallSettings settings) {
    Optional<TextRules.Violation> bad =
        TextRules.firstViolation(cmd.result(), "result", TextRules.Kind.TEXT)
            .or(() -> TurnSends.unstorable(cmd.sends()));
    if (bad.isPresent()) {
      return Optional.of(AgentEffects.invalid(bad.get()));
    }
    if (cmd.sends().size() > settings.maxSendsPerTurn()) {
      return Optional.of(
          new AgentEntity.Rejected(
              AgentEntity.ErrorCode.INVALID,
              "field 'send' may hold at most " + settings.maxSendsPerTurn() + " items"));
    }
    return Optional.empty();
  }

  /**
   * Why the completion's {@code defer} cannot be honoured (an item naming a call the agent neither
   * carries in this turn nor owes), as the agent's 400 naming {@code defer[i]}; empty when it can.
   */
  static Optional<AgentEntity.Rejected> badDefer(AgentState state, Lease lease, Complete cmd) {
    if (cmd.defer().isEmpty()) {
      return Optional.empty();
    }
    return TurnSends.badDefer(cmd.defer(), state.calls().owed(), state.carried(lease))
        .map(why -> new AgentEntity.Rejected(AgentEntity.ErrorCode.INVALID, why));
  }

  /**
   * The completion's events. {@code unseenSteered} (steered notifications the runner was not given)
   * leave the lease first: they stay unread, and no call among them is answered.
   */
  static List<Event> events(
      AgentEffects entity,
      AgentState before,
      List<String> unseenSteered,
      Complete cmd,
      CallSettings settings,
      Instant now) {
    AgentState state = NewInputState.withoutSteered(before, unseenSteered);
    Lease lease = state.lease();
    TurnSends.Plan plan =
        TurnSends.completion(
            entity.agentId(),
            lease.leaseId(),
            lease.fencingToken(),
            state.carried(lease),
            state.calls().owed(),
            cmd.defer(),
            cmd.sends(),
            cmd.result(),
            settings.maxDepth(),
            now,
            Ids::randomId);
    AgentState after = CallState.sent(state.completed(now), plan.items(), plan.calls(), now);
    List<Event> events = new ArrayList<>();
    events.add(
        new ActivationCompleted(
            lease.leaseId(),
            cmd.result(),
            now,
            InboxSummary.of(state.completed(now)),
            plan.items(),
            plan.calls(),
            plan.owed(),
            unseenSteered));
    for (TurnSends.Immediate answered : plan.immediate()) {
      Notification reply =
          new Notification(
              Ids.randomId(), dev.rota.core.model.Replies.TYPE, answered.payload(), null, now, 0);
      int toInbox = after.calls().resolved(answered.callId(), reply).toInbox().size();
      events.add(new CallResolved(answered.callId(), answered.status(), reply, toInbox, now));
      after = CallState.resolved(after, answered.callId(), answered.status(), reply, now);
    }
    return events;
  }
}
