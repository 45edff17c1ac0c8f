package dev.rota.cluster.runner;

import dev.rota.cluster.agent.AgentEntity;
import dev.rota.cluster.agent.AgentEntity.Reply;
import dev.rota.core.model.FailureAction;
import dev.rota.core.model.Ids;
import java.time.Duration;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.cluster.sharding.typed.javadsl.ClusterSharding;

/**
 * How a runner speaks to the agent that granted its lease: through sharding, to the agent id the
 * lease id carries, each ask bounded by {@code rota.runners.ask-timeout}.
 */
final class LeaseClient {
  private final ClusterSharding sharding;
  private final Duration askTimeout;

  LeaseClient(ClusterSharding sharding, Duration askTimeout) {
    this.sharding = sharding;
    this.askTimeout = askTimeout;
  }

  /** {@link AgentEntity.Extended}, or {@link AgentEntity.Rejected} when the lease is lost. */
  CompletionStage<Reply> heartbeat(String leaseId) {
    return ask(leaseId, replyTo -> new AgentEntity.Heartbeat(leaseId, replyTo));
  }

  /** Completes or fails the activation; {@link AgentEntity.Done} when the agent took it. */
  CompletionStage<Reply> report(String leaseId, Outcome outcome) {
    if (outcome instanceof Outcome.Failed f) {
      return ask(
          leaseId,
          replyTo ->
              new AgentEntity.Fail(leaseId, f.action(), f.error(), f.snoozeSeconds(), replyTo));
    }
    var result = ((Outcome.Completed) outcome).result();
    return ask(leaseId, replyTo -> new AgentEntity.Complete(leaseId, result, replyTo));
  }

  /** Gives a lease back unused: a snooze of zero frees the agent and uses up no attempt. */
  CompletionStage<Reply> handBack(String leaseId, String why) {
    return report(leaseId, new Outcome.Failed(FailureAction.SNOOZE, why, 0));
  }

  private CompletionStage<Reply> ask(
      String leaseId, Function<ActorRef<Reply>, AgentEntity.Command> command) {
    String agentId =
        Ids.agentOf(leaseId)
            .orElseThrow(() -> new IllegalArgumentException("malformed lease id " + leaseId));
    return sharding
        .entityRefFor(AgentEntity.ENTITY_TYPE_KEY, agentId)
        .ask(command::apply, askTimeout);
  }
}
