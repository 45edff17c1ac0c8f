package dev.rota.http;

import dev.rota.cluster.agent.AgentEntity;
import dev.rota.cluster.agent.AgentEntity.Command;
import dev.rota.cluster.agent.AgentEntity.Reply;
import dev.rota.cluster.agent.AgentHomes;
import dev.rota.cluster.agent.CallEntity;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;
import org.apache.pekko.actor.Address;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.cluster.sharding.typed.javadsl.ClusterSharding;
import org.apache.pekko.cluster.sharding.typed.javadsl.EntityTypeKey;

/**
 * How the HTTP layer talks to agents: one ask through Cluster Sharding, bounded by {@code
 * rota.http.ask-timeout}. An agent (or a cluster) that does not answer in time fails the stage with
 * a {@link java.util.concurrent.TimeoutException}, which {@link ApiErrors} answers 503.
 *
 * <p>An agent whose node this node sees unreachable ({@link AgentHomes}) is not asked: the ask
 * would only wait out the timeout, so the request is answered 503 at once with a Retry-After of
 * {@value #UNREACHABLE_RETRY_AFTER_SECONDS} s, by when its shard may have moved (decision 105).
 */
public final class AgentGateway {
  /** The Retry-After of a request refused because its agent's node is unreachable. */
  static final int UNREACHABLE_RETRY_AFTER_SECONDS = 1;

  private final ClusterSharding sharding;
  private final EntityTypeKey<Command> typeKey;
  private final Duration askTimeout;
  private final AgentHomes homes;

  /** Talks to the agents of {@link AgentEntity#ENTITY_TYPE_KEY}. */
  public AgentGateway(ActorSystem<?> system, Duration askTimeout) {
    this(system, AgentEntity.ENTITY_TYPE_KEY, askTimeout);
  }

  /** Talks to the entities of another type key with the agent protocol (tests use a silent one). */
  public AgentGateway(ActorSystem<?> system, EntityTypeKey<Command> typeKey, Duration askTimeout) {
    this.sharding = ClusterSharding.get(system);
    this.typeKey = typeKey;
    this.askTimeout = askTimeout;
    this.homes = typeKey.equals(AgentEntity.ENTITY_TYPE_KEY) ? AgentHomes.get(system) : null;
  }

  public CompletionStage<Reply> ask(String agentId, Function<ActorRef<Reply>, Command> command) {
    return ask(agentId, command, askTimeout);
  }

  /** {@link #ask} for a command the agent answers only after a wait of up to {@code within}. */
  public CompletionStage<Reply> ask(
      String agentId, Function<ActorRef<Reply>, Command> command, Duration within) {
    Optional<Address> unreachable =
        homes == null ? Optional.empty() : homes.unreachableHome(agentId);
    if (unreachable.isPresent()) {
      return CompletableFuture.failedFuture(
          ApiException.unavailable(
              "agent "
                  + agentId
                  + " lives on a node that is unreachable ("
                  + unreachable.get()
                  + "); its agents move to other nodes within seconds, nothing was accepted",
              UNREACHABLE_RETRY_AFTER_SECONDS));
    }
    CompletionStage<Reply> asked =
        sharding.entityRefFor(typeKey, agentId).ask(command::apply, within);
    if (homes == null) {
      return asked;
    }
    return homes
        .watch(agentId, asked)
        .exceptionallyCompose(
            failure -> {
              Throwable cause =
                  failure instanceof CompletionException ? failure.getCause() : failure;
              if (cause instanceof AgentHomes.HomeUnreachable gone) {
                return CompletableFuture.failedFuture(
                    ApiException.unavailable(
                        "agent "
                            + agentId
                            + "'s node "
                            + gone.home()
                            + " became unreachable while the request waited for it; its agents"
                            + " move to other nodes within seconds; the request may or may not"
                            + " have taken effect: retry it (a notification with the same dedupeKey"
                            + " is accepted once; a report on a lease already ended answers 410)",
                        UNREACHABLE_RETRY_AFTER_SECONDS));
              }
              return CompletableFuture.failedFuture(failure);
            });
  }

  /**
   * One ask of the entity of call {@code callId} (a call made from outside Rota), waiting up to
   * {@code within}.
   */
  public CompletionStage<CallEntity.Reply> askCall(
      String callId,
      Function<ActorRef<CallEntity.Reply>, CallEntity.Command> command,
      Duration within) {
    return sharding.entityRefFor(CallEntity.ENTITY_TYPE_KEY, callId).ask(command::apply, within);
  }

  public Duration askTimeout() {
    return askTimeout;
  }
}
