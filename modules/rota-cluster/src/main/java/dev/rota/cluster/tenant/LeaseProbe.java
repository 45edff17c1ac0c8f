package dev.rota.cluster.tenant;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletionStage;

/**
 * How a {@link TenantGate} asks an agent whether it still holds a lease: the agent package answers
 * (this package sits below it and cannot name the agent's commands). The agent decides by its own
 * clock, expiring the lease if it is over, exactly as the lease rescuer's question does.
 */
@FunctionalInterface
public interface LeaseProbe {
  /**
   * What is left of lease {@code leaseId} of agent {@code agentKey}; empty when the agent does not
   * hold it (any more). Fails when the agent did not answer: the gate then asks again later and
   * keeps the permit meanwhile.
   */
  CompletionStage<Optional<Duration>> held(String agentKey, String leaseId);
}
