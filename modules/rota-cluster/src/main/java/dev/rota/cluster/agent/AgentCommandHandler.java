package dev.rota.cluster.agent;

import dev.rota.cluster.agent.AgentEntity.Claim;
import dev.rota.cluster.agent.AgentEntity.Command;
import dev.rota.cluster.agent.AgentEntity.Complete;
import dev.rota.cluster.agent.AgentEntity.Deregister;
import dev.rota.cluster.agent.AgentEntity.Discard;
import dev.rota.cluster.agent.AgentEntity.ExpireLease;
import dev.rota.cluster.agent.AgentEntity.Fail;
import dev.rota.cluster.agent.AgentEntity.FullState;
import dev.rota.cluster.agent.AgentEntity.Get;
import dev.rota.cluster.agent.AgentEntity.GetRow;
import dev.rota.cluster.agent.AgentEntity.GetState;
import dev.rota.cluster.agent.AgentEntity.Heartbeat;
import dev.rota.cluster.agent.AgentEntity.Notify;
import dev.rota.cluster.agent.AgentEntity.NotifyAll;
import dev.rota.cluster.agent.AgentEntity.PermitAnswered;
import dev.rota.cluster.agent.AgentEntity.Redrive;
import dev.rota.cluster.agent.AgentEntity.Register;
import dev.rota.cluster.agent.AgentEntity.Release;
import dev.rota.cluster.agent.AgentEntity.RowState;
import dev.rota.cluster.agent.AgentEntity.SetPaused;
import dev.rota.cluster.agent.AgentEvents.Event;
import dev.rota.cluster.metrics.RotaMetrics;
import dev.rota.core.model.AgentState;
import dev.rota.core.model.AgentSummary;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;
import org.apache.pekko.persistence.typed.javadsl.CommandHandlerWithReply;
import org.apache.pekko.persistence.typed.javadsl.CommandHandlerWithReplyBuilder;

/**
 * An agent's command handler: which group handles each command ({@link AdminCommands}, {@link
 * InboxCommands}, {@link LeaseCommands}, and {@link TurnInput} for new input during a turn), the
 * guard that answers {@link AgentEntity.ErrorCode#NOT_FOUND} for an agent not registered ({@link
 * AgentEffects#registered}), and the stash that holds claims while a capped tenant's gate is asked
 * for a permit (decision 99).
 */
final class AgentCommandHandler {
  private final AgentEffects effects;
  private final AdminCommands admin;
  private final InboxCommands inbox;
  private final LeaseCommands leases;
  private final TurnInput turnInput;
  private final SendDelivery delivery;
  private final CallCommands calls;

  AgentCommandHandler(
      AgentEffects effects,
      LeaseTimer leaseTimer,
      TimerScheduler<Command> timers,
      AgentSettings settings,
      CallSettings callSettings,
      Mailbox mailbox,
      RotaMetrics metrics,
      ActorContext<Command> context) {
    this.effects = effects;
    this.delivery = new SendDelivery(effects, context, timers, callSettings, mailbox);
    this.calls = new CallCommands(effects, timers);
    effects.afterWrite(this::owed);
    this.admin = new AdminCommands(effects);
    TenantCaps caps = new TenantCaps(context.getSystem(), effects.agentId());
    this.turnInput = new TurnInput(effects, leaseTimer, timers, metrics, caps);
    this.inbox = new InboxCommands(effects, settings, metrics, turnInput);
    this.leases =
        new LeaseCommands(
            effects,
            leaseTimer,
            settings,
            metrics,
            context.getSystem(),
            caps,
            context,
            turnInput,
            callSettings);
  }

  /**
   * What {@code state} owes and waits for is under way: its outbox delivered, its earliest call
   * deadline timed. After every write, and once recovered (a node that died left it so).
   */
  void owed(AgentState state) {
    if (!state.calls().isEmpty() || calls.timing()) {
      delivery.deliver(state);
      calls.schedule(state);
    }
  }

  /** The handler, built on {@code handlers}, the entity's own builder. */
  CommandHandlerWithReply<Command, Event, AgentState> build(
      CommandHandlerWithReplyBuilder<Command, Event, AgentState> handlers) {
    // While the tenant's gate is asked for a permit, other claims wait; everything else goes on
    // (notifications are not held up by the gate), and the claim is decided again on the state
    // the permit finds, under the permitted lease id: no other grant can come between.
    handlers
        .forState(s -> leases.awaitingPermit())
        .onCommand(PermitAnswered.class, leases::onPermitAnswered)
        .onCommand(Claim.class, (s, c) -> effects.effect().stash());
    var builder = handlers.forAnyState();
    builder
        .onCommand(PermitAnswered.class, (s, c) -> effects.effect().noReply())
        .onCommand(Register.class, admin::onRegister)
        .onCommand(Get.class, admin::onGet)
        .onCommand(GetState.class, (s, c) -> effects.effect().reply(c.replyTo(), new FullState(s)))
        .onCommand(AgentEntity.Snapshot.class, admin::onSnapshot)
        .onCommand(
            GetRow.class,
            (s, c) ->
                effects
                    .effect()
                    .reply(c.replyTo(), new RowState(AgentSummary.of(s), effects.seqNr())))
        .onCommand(Claim.class, leases::onClaim)
        .onCommand(ExpireLease.class, leases::onExpireLease)
        .onCommand(AgentEntity.AwaitInput.class, turnInput::onAwaitInput)
        .onCommand(AgentEntity.InputWaitOver.class, turnInput::onWaitOver)
        .onCommand(AgentEntity.SendAnswered.class, delivery::onAnswered)
        .onCommand(AgentEntity.RetrySend.class, delivery::onRetry)
        .onCommand(AgentEntity.CallsDue.class, calls::onCallsDue)
        .onCommand(
            AgentEntity.DeliverOwed.class,
            (s, c) -> {
              owed(s);
              return effects.effect().noReply();
            });
    builder
        .onCommand(Deregister.class, effects.registered(Deregister::replyTo, admin::onDeregister))
        .onCommand(Notify.class, effects.registered(Notify::replyTo, inbox::onNotify, c -> 1))
        .onCommand(
            NotifyAll.class,
            effects.registered(NotifyAll::replyTo, inbox::onNotifyAll, c -> c.items().size()))
        .onCommand(SetPaused.class, effects.registered(SetPaused::replyTo, admin::onSetPaused))
        .onCommand(Heartbeat.class, effects.registered(Heartbeat::replyTo, leases::onHeartbeat))
        .onCommand(Complete.class, effects.registered(Complete::replyTo, leases::onComplete))
        .onCommand(Fail.class, effects.registered(Fail::replyTo, leases::onFail))
        .onCommand(Release.class, effects.registered(Release::replyTo, leases::onRelease))
        .onCommand(Redrive.class, effects.registered(Redrive::replyTo, admin::onRedrive))
        .onCommand(Discard.class, effects.registered(Discard::replyTo, admin::onDiscard))
        .onCommand(
            AgentEntity.DeliverReply.class,
            effects.registered(AgentEntity.DeliverReply::replyTo, calls::onDeliverReply));
    return handlers.build();
  }
}
