package dev.rota.cluster.agent;

import dev.rota.cluster.agent.AgentEntity.ErrorCode;
import dev.rota.cluster.agent.AgentEntity.Rejected;
import dev.rota.core.model.Ids;

/** How an agent refuses a report on a lease: not this runner's, or no longer live. */
final class LeaseRefusals {
  private LeaseRefusals() {}

  static Rejected notHeldBy(String runnerId) {
    return new Rejected(
        ErrorCode.LEASE_NOT_HELD,
        "the lease was granted to another runner than "
            + (runnerId == null ? "this one" : "'" + runnerId + "'"));
  }

  /** Names the lease by agent and fencing token: replies end up in logs, lease ids must not. */
  static Rejected leaseLost(String leaseId) {
    return new Rejected(
        ErrorCode.LEASE_LOST, Ids.leaseLabel(leaseId) + " expired or was superseded");
  }
}
