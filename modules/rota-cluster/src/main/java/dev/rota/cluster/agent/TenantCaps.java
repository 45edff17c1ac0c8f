package dev.rota.cluster.agent;

import dev.rota.cluster.Asks;
import dev.rota.cluster.tenant.TenantCapSettings;
import dev.rota.cluster.tenant.TenantGate;
import dev.rota.cluster.tenant.TenantTables;
import dev.rota.core.model.Lease;
import dev.rota.core.tenant.AgentKeys;
import java.time.Duration;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.ActorContext;

/**
 * An agent's side of its tenant's caps: whether its tenant is capped now (one lookup in this node's
 * tenant table: an uncapped tenant's claim pays nothing more), the question to the tenant's {@link
 * TenantGate} before a grant, and the permit given back when the lease ends.
 */
final class TenantCaps {
  /** The reason of a claim denied because the tenant's gate did not answer in time. */
  static final String GATE_UNAVAILABLE = "tenant_gate_unavailable";

  private final ActorSystem<?> system;
  private final String agentKey;
  private final String tenant;
  private final TenantTables tables;

  /** Read when the agent first asks its gate: an uncapped tenant's agent never does. */
  private Duration askTimeout;

  TenantCaps(ActorSystem<?> system, String agentKey) {
    this.system = system;
    this.agentKey = agentKey;
    this.tenant = AgentKeys.tenantOf(agentKey);
    this.tables = TenantTables.get(system);
  }

  /** Whether a grant needs a permit of the tenant's gate now. */
  boolean capped() {
    return tables.current().specOf(tenant).capped();
  }

  /** Asks the gate for a permit for {@code lease}; the answer comes back as the agent's command. */
  void acquire(ActorContext<AgentEntity.Command> context, Lease lease) {
    String leaseId = lease.leaseId();
    if (askTimeout == null) {
      askTimeout = TenantCapSettings.from(system.settings().config()).askTimeout();
    }
    Asks.ask(
        context,
        TenantGate.Answer.class,
        TenantGate.of(system, tenant),
        askTimeout,
        replyTo -> new TenantGate.Acquire(agentKey, leaseId, lease.leaseSeconds(), replyTo),
        (answer, failure) -> new AgentEntity.PermitAnswered(leaseId, answer));
  }

  /**
   * Gives the permit of {@code leaseId} back: its lease ended, or was never granted. Sent whenever
   * the tenant is capped now; a permit whose release is lost is dropped when the gate asks.
   */
  void release(String leaseId, String why) {
    if (capped()) {
      TenantGate.of(system, tenant).tell(new TenantGate.Release(leaseId, why));
    }
  }
}
