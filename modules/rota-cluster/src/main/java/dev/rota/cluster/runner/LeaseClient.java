package dev.rota.cluster.runner;

import dev.rota.cluster.Asks;
import dev.rota.cluster.agent.AgentEntity;
import dev.rota.cluster.agent.AgentEntity.Reply;
import dev.rota.core.model.Ids;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.cluster.sharding.typed.javadsl.ClusterSharding;
import org.apache.pekko.cluster.sharding.typed.javadsl.EntityRef;
import org.apache.pekko.japi.function.Function2;

/**
 * How a runner speaks to the agent that granted its lease: through sharding, to the agent id the
 * lease id carries, each ask bounded by {@code rota.runners.ask-timeout}. Answers come back as the
 * runner's own messages ({@link Asks}: no callback on another thread per heartbeat and report).
 *
 * @param <T> the runner's message type
 */
final class LeaseClient<T> {
  /**
   * An in-cluster executor is given no new input during its turn, so steered notifications its
   * report does not name stay unread for the next turn.
   */
  private static final List<String> NONE_SEEN = List.of();

  private final ActorContext<T> ctx;
  private final String runnerId;
  private final ClusterSharding sharding;
  private final Duration askTimeout;

  /**
   * {@code runnerId} is the runner's own id: the agent only takes reports from its lease holder.
   */
  LeaseClient(ActorContext<T> ctx, String runnerId, Duration askTimeout) {
    this.ctx = ctx;
    this.runnerId = runnerId;
    this.sharding = ClusterSharding.get(ctx.getSystem());
    this.askTimeout = askTimeout;
  }

  /** {@link AgentEntity.Extended}, or {@link AgentEntity.Rejected} when the lease is lost. */
  void heartbeat(String leaseId, Function2<Reply, Throwable, T> answered) {
    ask(leaseId, replyTo -> new AgentEntity.Heartbeat(leaseId, runnerId, replyTo), answered);
  }

  /** Completes or fails the activation; {@link AgentEntity.Done} when the agent took it. */
  void report(String leaseId, Outcome outcome, Function2<Reply, Throwable, T> answered) {
    ask(leaseId, command(leaseId, outcome), answered);
  }

  /**
   * Gives a lease back unused ({@link AgentEntity.Release}): the agent is free at once and no
   * attempt is used up. For a runner that is stopping, so the answer is not one of its messages.
   */
  CompletionStage<Reply> handBack(String leaseId, String why) {
    return agent(leaseId)
        .ask(replyTo -> new AgentEntity.Release(leaseId, runnerId, why, replyTo), askTimeout);
  }

  private Function<ActorRef<Reply>, AgentEntity.Command> command(String leaseId, Outcome outcome) {
    if (outcome instanceof Outcome.Failed f) {
      return replyTo ->
          new AgentEntity.Fail(
              leaseId, runnerId, f.action(), f.error(), f.snoozeSeconds(), NONE_SEEN, replyTo);
    }
    var completed = (Outcome.Completed) outcome;
    return replyTo ->
        new AgentEntity.Complete(
            leaseId,
            runnerId,
            completed.result(),
            completed.sends(),
            List.of(),
            NONE_SEEN,
            replyTo);
  }

  private void ask(
      String leaseId,
      Function<ActorRef<Reply>, AgentEntity.Command> command,
      Function2<Reply, Throwable, T> answered) {
    Asks.ask(ctx, Reply.class, agent(leaseId), askTimeout, command::apply, answered);
  }

  private EntityRef<AgentEntity.Command> agent(String leaseId) {
    String agentId =
        Ids.agentOf(leaseId)
            .orElseThrow(() -> new IllegalArgumentException("malformed lease id " + leaseId));
    return sharding.entityRefFor(AgentEntity.ENTITY_TYPE_KEY, agentId);
  }
}
