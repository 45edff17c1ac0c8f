package dev.rota.cluster.assign;

import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import com.fasterxml.jackson.annotation.JsonUnwrapped;
import dev.rota.cluster.CborSerializable;
import dev.rota.cluster.agent.AgentEntity;
import dev.rota.core.model.ClaimSpec;
import org.apache.pekko.actor.typed.ActorRef;

/**
 * How a runner asks for work and what it gets back; spoken to the node's {@link Dispatcher} by
 * in-cluster runners and by the HTTP claim route on behalf of external runners.
 */
public final class WorkProtocol {
  private WorkProtocol() {}

  /**
   * Ask for one activation: {@code spec} is the claim, flat on the wire beside the other fields
   * (the names every release sends and reads).
   *
   * @param node the node the runner lives on, null for an external runner
   */
  public record RequestWork(@JsonUnwrapped ClaimSpec spec, String node, ActorRef<WorkReply> replyTo)
      implements Dispatcher.Command, CborSerializable {}

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
