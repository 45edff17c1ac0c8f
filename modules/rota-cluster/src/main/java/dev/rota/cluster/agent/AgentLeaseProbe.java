package dev.rota.cluster.agent;

import dev.rota.cluster.tenant.LeaseProbe;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.cluster.sharding.typed.javadsl.ClusterSharding;

/**
 * A tenant gate's question to an agent, as the agent's {@link AgentEntity.ExpireLease}: the agent
 * answers by its own clock, and expires the lease first if it is over.
 */
public final class AgentLeaseProbe implements LeaseProbe {
  private final ClusterSharding sharding;
  private final Duration timeout;

  public AgentLeaseProbe(ActorSystem<?> system, Duration timeout) {
    this.sharding = ClusterSharding.get(system);
    this.timeout = timeout;
  }

  @Override
  public CompletionStage<Optional<Duration>> held(String agentKey, String leaseId) {
    return sharding
        .entityRefFor(AgentEntity.ENTITY_TYPE_KEY, agentKey)
        .<AgentEntity.Reply>ask(replyTo -> new AgentEntity.ExpireLease(leaseId, replyTo), timeout)
        .thenApply(AgentLeaseProbe::left);
  }

  /** {@link AgentEntity.LeaseLive}: held, with what is left; any other answer: not held. */
  static Optional<Duration> left(AgentEntity.Reply reply) {
    if (reply instanceof AgentEntity.LeaseLive live) {
      return Optional.of(Duration.ofMillis(Math.max(0, live.leftMillis())));
    }
    if (reply instanceof AgentEntity.Done || reply instanceof AgentEntity.LeaseGone) {
      return Optional.empty();
    }
    throw new IllegalStateException("unexpected answer about a lease: " + reply);
  }
}
