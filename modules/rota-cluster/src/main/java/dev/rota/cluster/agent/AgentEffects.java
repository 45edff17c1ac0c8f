package dev.rota.cluster.agent;

import dev.rota.cluster.agent.AgentEntity.ErrorCode;
import dev.rota.cluster.agent.AgentEntity.Rejected;
import dev.rota.cluster.agent.AgentEvents.ActivationFailed;
import dev.rota.cluster.agent.AgentEvents.Event;
import dev.rota.cluster.agent.AgentEvents.LeaseExpired;
import dev.rota.cluster.agent.AgentEvents.LeaseGranted;
import dev.rota.cluster.agent.AgentEvents.NotificationReceived;
import dev.rota.cluster.metrics.CallMeters;
import dev.rota.cluster.metrics.RotaMetrics;
import dev.rota.core.model.AgentState;
import dev.rota.core.model.Lease;
import dev.rota.core.model.TextRules.Violation;
import dev.rota.core.tenant.AgentKeys;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.ToIntFunction;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.persistence.typed.javadsl.EffectBuilder;
import org.apache.pekko.persistence.typed.javadsl.EffectFactories;
import org.apache.pekko.persistence.typed.javadsl.ReplyEffect;

/**
 * What an agent's command groups share: its effects, its clock and its one way of writing, after
 * which the change listener and this node's counters hear of every persisted event.
 */
final class AgentEffects {
  private final AgentBehavior entity;
  private final String agentId;
  private final ActorContext<AgentEntity.Command> context;
  private final Clock clock;
  private final AgentChangeListener listener;
  private final RotaMetrics metrics;
  private final CallMeters callMeters;

  /** Told of the state after every write: what it now owes others is delivered. */
  private java.util.function.Consumer<AgentState> afterWrite = s -> {};

  AgentEffects(
      AgentBehavior entity,
      String agentId,
      ActorContext<AgentEntity.Command> context,
      Clock clock,
      AgentChangeListener listener,
      RotaMetrics metrics) {
    this.entity = entity;
    this.agentId = agentId;
    this.context = context;
    this.clock = clock;
    this.listener = listener;
    this.metrics = metrics;
    this.callMeters = CallMeters.get(context.getSystem());
  }

  /** {@code hook} hears the state after every write of this agent. */
  void afterWrite(java.util.function.Consumer<AgentState> hook) {
    this.afterWrite = hook;
  }

  String agentId() {
    return agentId;
  }

  Instant now() {
    return clock.instant();
  }

  /** The sequence number of the agent's last event. */
  long seqNr() {
    return entity.lastSequenceNumber(context);
  }

  EffectFactories<Event, AgentState> effect() {
    return entity.Effect();
  }

  /** Persists {@code event}; the listener and this node's counters hear of it once it is. */
  EffectBuilder<Event, AgentState> persist(Event event) {
    return effect()
        .persist(event)
        .thenRun(s -> listener.changed(s, seqNr()))
        .thenRun(s -> count(event))
        .thenRun(s -> afterWrite.accept(s));
  }

  /** Persists {@code events} in one atomic write. */
  EffectBuilder<Event, AgentState> persist(List<Event> events) {
    return effect()
        .persist(events)
        .thenRun(s -> listener.changed(s, seqNr()))
        .thenRun(s -> events.forEach(this::count))
        .thenRun(s -> afterWrite.accept(s));
  }

  /** This node's counters of what was persisted (docs/operations.md). */
  private void count(Event event) {
    if (event instanceof NotificationReceived) {
      metrics.notificationAccepted(false);
    } else if (event instanceof LeaseGranted e) {
      metrics.leaseGranted(e.lease().kind());
      metrics.tenants().leaseGranted(AgentKeys.tenantOf(agentId));
    } else if (event instanceof LeaseExpired e) {
      metrics.leaseExpired(e.deadLettered() == null ? 0 : e.deadLettered().size());
    } else if (event instanceof ActivationFailed e) {
      metrics.deadLettered(e.deadLettered() == null ? 0 : e.deadLettered().size());
    } else if (event instanceof AgentEvents.ActivationCompleted e && !e.calls().isEmpty()) {
      callMeters.callsSent(e.calls().size());
    } else if (event instanceof AgentEvents.CallResolved e) {
      callMeters.replied(e.status());
    } else if (event instanceof AgentEvents.SendUndeliverable e) {
      callMeters.undeliverable(e.reason());
    }
  }

  /** The runner held {@code lease} until {@code endedAt}: its tenant's runner time counts it. */
  void leaseEnded(Lease lease, Instant endedAt) {
    metrics.tenants().leaseEnded(AgentKeys.tenantOf(agentId), lease.grantedAt(), endedAt);
  }

  /** {@code handler} for a registered agent; {@link ErrorCode#NOT_FOUND} for any other. */
  <C extends AgentEntity.Command>
      BiFunction<AgentState, C, ReplyEffect<Event, AgentState>> registered(
          Function<C, ActorRef<AgentEntity.Reply>> replyTo,
          BiFunction<AgentState, C, ReplyEffect<Event, AgentState>> handler) {
    return registered(replyTo, handler, c -> 0);
  }

  /** {@link #registered} for a command of {@code notifications}, counted as refused if not. */
  <C extends AgentEntity.Command>
      BiFunction<AgentState, C, ReplyEffect<Event, AgentState>> registered(
          Function<C, ActorRef<AgentEntity.Reply>> replyTo,
          BiFunction<AgentState, C, ReplyEffect<Event, AgentState>> handler,
          ToIntFunction<C> notifications) {
    return (state, cmd) -> {
      if (state.registered()) {
        return handler.apply(state, cmd);
      }
      for (int i = notifications.applyAsInt(cmd); i > 0; i--) {
        metrics.notificationRefused("not_found");
      }
      return effect().reply(replyTo.apply(cmd), notFound());
    };
  }

  Rejected notFound() {
    return new Rejected(ErrorCode.NOT_FOUND, "no agent " + agentId);
  }

  CallMeters callMeters() {
    return callMeters;
  }

  static Rejected invalid(Violation violation) {
    return new Rejected(ErrorCode.INVALID, violation.message());
  }
}
