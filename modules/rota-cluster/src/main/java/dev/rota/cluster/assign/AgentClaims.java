package dev.rota.cluster.assign;

import dev.rota.cluster.Asks;
import dev.rota.cluster.agent.AgentEntity;
import dev.rota.cluster.assign.PendingClaims.Pending;
import dev.rota.cluster.metrics.RotaMetrics;
import dev.rota.core.model.ActivationKind;
import dev.rota.core.model.Notification;
import java.time.Duration;
import java.time.Instant;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.cluster.sharding.typed.javadsl.ClusterSharding;
import org.apache.pekko.japi.function.Function2;

/**
 * How a dispatcher speaks to agents for its claims: it asks the agent it ranked first, gives back a
 * lease granted for a claim that already gave up, passes an agent's denial on to its partition's
 * coordinator, and counts each assignment.
 */
final class AgentClaims {
  private final ActorContext<Dispatcher.Command> context;
  private final ClusterSharding sharding;
  private final Coordinators coordinators;
  private final RotaMetrics metrics;
  private final Duration timeout;

  AgentClaims(
      ActorContext<Dispatcher.Command> context, Coordinators coordinators, Duration timeout) {
    this.context = context;
    this.sharding = ClusterSharding.get(context.getSystem());
    this.coordinators = coordinators;
    this.metrics = RotaMetrics.get(context.getSystem());
    this.timeout = timeout;
  }

  /**
   * Asks the agent for a lease for {@code p}; its answer comes back as the dispatcher's message.
   */
  void ask(
      Pending p,
      String agentId,
      Function2<AgentEntity.Reply, Throwable, Dispatcher.Command> answered) {
    Asks.ask(
        context,
        AgentEntity.Reply.class,
        sharding.entityRefFor(AgentEntity.ENTITY_TYPE_KEY, agentId),
        timeout,
        replyTo -> new AgentEntity.Claim(p.request.spec(), replyTo),
        answered);
  }

  /** A lease granted for a request that already gave up: hand the agent back unchanged. */
  void giveBack(AgentEntity.Granted granted) {
    sharding
        .entityRefFor(AgentEntity.ENTITY_TYPE_KEY, ActivationJson.agentIdOf(granted.lease()))
        .tell(
            AgentEntity.Release.of(
                granted, "runner stopped waiting", context.getSystem().ignoreRef()));
  }

  /** The agent's own answer corrects its partition's picture of it. */
  void correct(int partition, AgentEntity.Denied denied) {
    coordinators
        .of(partition)
        .ifPresent(
            c ->
                c.tell(
                    new Coordinator.AgentChanged(
                        denied.schedule(), denied.seqNr(), denied.registered())));
  }

  /** Counts an assignment: how long its claim took, and how long its oldest notification waited. */
  void count(Pending p, AgentEntity.Granted granted) {
    Duration claim = Duration.ofNanos(System.nanoTime() - p.startedNanos);
    Duration wait =
        granted.lease().kind() == ActivationKind.INBOX
            ? granted.notifications().stream()
                .map(Notification::receivedAt)
                .min(Instant::compareTo)
                .map(oldest -> Duration.between(oldest, granted.lease().grantedAt()))
                .orElse(null)
            : null;
    metrics.assigned(granted.lease().kind(), claim, wait);
  }
}
