package dev.rota.cluster.agent;

import com.fasterxml.jackson.databind.JsonNode;
import dev.rota.cluster.CborSerializable;
import dev.rota.core.model.AgentConfig;
import dev.rota.core.model.FailureAction;
import dev.rota.core.model.Lease;
import dev.rota.core.model.Notification;
import java.time.Instant;

/** The events of {@link AgentEntity}: the journal schema, so change them only compatibly. */
public final class AgentEvents {
  private AgentEvents() {}

  /** Every agent event; {@code at} is when it happened. */
  public sealed interface Event extends CborSerializable {
    Instant at();
  }

  public record AgentRegistered(AgentConfig config, Instant at) implements Event {}

  public record AgentUpdated(AgentConfig config, Instant at) implements Event {}

  public record AgentDeregistered(Instant at) implements Event {}

  public record NotificationReceived(Notification notification) implements Event {
    @Override
    public Instant at() {
      return notification.receivedAt();
    }
  }

  public record LeaseGranted(Lease lease) implements Event {
    @Override
    public Instant at() {
      return lease.grantedAt();
    }
  }

  public record LeaseRenewed(String leaseId, Instant expiresAt, Instant at) implements Event {}

  public record ActivationCompleted(String leaseId, JsonNode result, Instant at) implements Event {}

  public record ActivationFailed(
      String leaseId, FailureAction action, String error, Instant snoozedUntil, Instant at)
      implements Event {}

  /** The runner stopped heartbeating: counts as a retry. */
  public record LeaseExpired(String leaseId, Instant at) implements Event {}

  public record AgentPaused(Instant at) implements Event {}

  public record AgentResumed(Instant at) implements Event {}

  public record DeadLetterRedriven(String deadLetterId, Instant at) implements Event {}
}
