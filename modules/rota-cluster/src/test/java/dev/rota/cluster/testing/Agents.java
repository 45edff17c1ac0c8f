package dev.rota.cluster.testing;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.rota.cluster.agent.AgentEntity;
import dev.rota.cluster.agent.AgentEntity.Command;
import dev.rota.cluster.agent.AgentEntity.Reply;
import dev.rota.core.model.AgentConfigPatch;
import dev.rota.core.model.ClaimSpec;
import dev.rota.core.model.FailureAction;
import dev.rota.core.model.Lease;
import dev.rota.core.model.RunnerMode;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.cluster.sharding.typed.javadsl.ClusterSharding;

/** Drives sharded agents from a test, as the HTTP layer would, and waits for each reply. */
public final class Agents {
  private static final Duration TIMEOUT = Duration.ofSeconds(10);

  private final ActorSystem<?> system;

  public Agents(ActorSystem<?> system) {
    this.system = system;
  }

  public Reply ask(String agentId, Function<ActorRef<Reply>, Command> command) {
    try {
      return ClusterSharding.get(system)
          .entityRefFor(AgentEntity.ENTITY_TYPE_KEY, agentId)
          .<Reply>ask(command::apply, TIMEOUT)
          .toCompletableFuture()
          .get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException | ExecutionException | TimeoutException e) {
      throw new AssertionError("agent " + agentId + " did not answer", e);
    }
  }

  public <R extends Reply> R ask(
      String agentId, Function<ActorRef<Reply>, Command> command, Class<R> expected) {
    Reply reply = ask(agentId, command);
    if (!expected.isInstance(reply)) {
      throw new AssertionError("agent " + agentId + " replied " + reply + ", not " + expected);
    }
    return expected.cast(reply);
  }

  public AgentEntity.AgentDetails register(String agentId, AgentConfigPatch patch) {
    return ask(agentId, r -> new AgentEntity.Register(patch, r), AgentEntity.AgentDetails.class);
  }

  public AgentEntity.Accepted notify(String agentId, String type) {
    return ask(
        agentId,
        r ->
            new AgentEntity.Notify(
                type, JsonNodeFactory.instance.objectNode().put("type", type), null, r),
        AgentEntity.Accepted.class);
  }

  public AgentEntity.Granted claim(String agentId, String runnerId, long leaseSeconds) {
    return ask(
        agentId,
        r ->
            new AgentEntity.Claim(
                new ClaimSpec(runnerId, RunnerMode.HYBRID, Set.of(), Duration.ZERO, leaseSeconds),
                r),
        AgentEntity.Granted.class);
  }

  public AgentEntity.Granted claim(
      String agentId, String runnerId, Set<String> capabilities, long leaseSeconds) {
    return ask(
        agentId,
        r ->
            new AgentEntity.Claim(
                new ClaimSpec(
                    runnerId, RunnerMode.HYBRID, capabilities, Duration.ZERO, leaseSeconds),
                r),
        AgentEntity.Granted.class);
  }

  /** Completes the lease as the runner it was granted to. */
  public void complete(String agentId, Lease lease) {
    ask(
        agentId,
        r -> new AgentEntity.Complete(lease.leaseId(), lease.runnerId(), null, r),
        AgentEntity.Done.class);
  }

  /** Fails the lease as the runner it was granted to. */
  public void fail(String agentId, Lease lease, FailureAction action) {
    ask(
        agentId,
        r -> new AgentEntity.Fail(lease.leaseId(), lease.runnerId(), action, "boom", 0, null, r),
        AgentEntity.Done.class);
  }

  /** The whole state, inbox and dead letters included (same JVM only). */
  public dev.rota.core.model.AgentState state(String agentId) {
    return ask(agentId, AgentEntity.GetState::new, AgentEntity.FullState.class).state();
  }

  public AgentEntity.AgentDetails get(String agentId) {
    return ask(agentId, AgentEntity.Get::new, AgentEntity.AgentDetails.class);
  }
}
