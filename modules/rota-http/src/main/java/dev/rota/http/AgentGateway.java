package dev.rota.http;

import dev.rota.cluster.agent.AgentEntity;
import dev.rota.cluster.agent.AgentEntity.Command;
import dev.rota.cluster.agent.AgentEntity.Reply;
import java.time.Duration;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.cluster.sharding.typed.javadsl.ClusterSharding;
import org.apache.pekko.cluster.sharding.typed.javadsl.EntityTypeKey;

/**
 * How the HTTP layer talks to agents: one ask through Cluster Sharding, bounded by {@code
 * rota.http.ask-timeout}. An agent (or a cluster) that does not answer in time fails the stage with
 * a {@link java.util.concurrent.TimeoutException}, which {@link ApiErrors} answers 503.
 */
public final class AgentGateway {
  private final ClusterSharding sharding;
  private final EntityTypeKey<Command> typeKey;
  private final Duration askTimeout;

  /** Talks to the agents of {@link AgentEntity#ENTITY_TYPE_KEY}. */
  public AgentGateway(ActorSystem<?> system, Duration askTimeout) {
    this(system, AgentEntity.ENTITY_TYPE_KEY, askTimeout);
  }

  /** Talks to the entities of another type key with the agent protocol (tests use a silent one). */
  public AgentGateway(ActorSystem<?> system, EntityTypeKey<Command> typeKey, Duration askTimeout) {
    this.sharding = ClusterSharding.get(system);
    this.typeKey = typeKey;
    this.askTimeout = askTimeout;
  }

  public CompletionStage<Reply> ask(String agentId, Function<ActorRef<Reply>, Command> command) {
    return sharding.entityRefFor(typeKey, agentId).ask(command::apply, askTimeout);
  }

  /** {@link #ask} for a command the agent answers only after a wait of up to {@code within}. */
  public CompletionStage<Reply> ask(
      String agentId, Function<ActorRef<Reply>, Command> command, Duration within) {
    return sharding.entityRefFor(typeKey, agentId).ask(command::apply, within);
  }
}
