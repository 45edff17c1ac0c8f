package dev.rota.cluster.assign;

import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import dev.rota.cluster.CborSerializable;
import dev.rota.cluster.agent.AgentEntity;
import dev.rota.core.model.RunnerMode;
import java.time.Duration;
import java.util.Set;
import org.apache.pekko.actor.typed.ActorRef;

/**
 * How a runner asks for work and what it gets back; spoken to the node's {@link Dispatcher} by
 * in-cluster runners and by the HTTP claim route on behalf of external runners.
 */
public final class WorkProtocol {
  private WorkProtocol() {}

  /**
   * Ask for one activation.
   *
   * @param node the node the runner lives on, null for an external runner
   * @param maxWait how long to wait for work when none fits now (long poll), zero to answer at once
   * @param leaseSeconds the lease length asked for, 0 for the configured default
   * @param tenants the tenants whose agents this runner may serve; empty: every tenant
   */
  public record RequestWork(
      String runnerId,
      String node,
      RunnerMode mode,
      Set<String> capabilities,
      Duration maxWait,
      long leaseSeconds,
      ActorRef<WorkReply> replyTo,
      Set<String> tenants)
      implements Dispatcher.Command, CborSerializable {
    public RequestWork {
      capabilities = Set.copyOf(capabilities);
      tenants = tenants == null ? Set.of() : Set.copyOf(tenants);
    }

    /** A request that may serve every tenant. */
    public RequestWork(
        String runnerId,
        String node,
        RunnerMode mode,
        Set<String> capabilities,
        Duration maxWait,
        long leaseSeconds,
        ActorRef<WorkReply> replyTo) {
      this(runnerId, node, mode, capabilities, maxWait, leaseSeconds, replyTo, Set.of());
    }

    /** Whether this request may serve an agent of {@code tenant}. */
    public boolean serves(String tenant) {
      return tenants.isEmpty() || tenants.contains(tenant);
    }
  }

  /**
   * The answer to {@link RequestWork}. Typed by name, since it also travels as a field of a
   * coordinator's answer to a dispatcher on another node.
   */
  @JsonTypeInfo(use = JsonTypeInfo.Id.NAME, property = "type")
  @JsonSubTypes({
    @JsonSubTypes.Type(value = Assigned.class, name = "assigned"),
    @JsonSubTypes.Type(value = NoWork.class, name = "none"),
    @JsonSubTypes.Type(value = Paused.class, name = "paused"),
    @JsonSubTypes.Type(value = Refused.class, name = "refused")
  })
  public sealed interface WorkReply extends CborSerializable {}

  /** A lease was granted: the runner now owns the agent until the lease expires. */
  public record Assigned(AgentEntity.Granted granted) implements WorkReply {}

  /** No work fitted within the wait. */
  public record NoWork() implements WorkReply {}

  /**
   * This runner gets no work now: it is {@code degraded} or {@code draining} (the reason), and
   * should ask again after {@code retryAfterSeconds}.
   */
  public record Refused(String reason, long retryAfterSeconds) implements WorkReply {}

  /** The system is paused: no new claims until resume. */
  public record Paused() implements WorkReply {}
}
