package dev.rota.cluster.assign;

import dev.rota.cluster.agent.AgentEntity;
import dev.rota.cluster.tenant.Permits;
import dev.rota.core.tenant.AgentKeys;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;

/**
 * The tenants a dispatcher passes over for a while: an agent denied a claim for its tenant (the
 * tenant at its concurrency or rate cap, or its gate not answering) tells the dispatcher to rank
 * the other tenants' agents instead of trying the same tenant's agents one after another. A tenant
 * at its rate cap is held until its gate said the window has room; one at its concurrency cap (a
 * lease may end any moment) for {@code rota.tenant-caps.hold}, one whose gate did not answer for
 * four times that.
 */
final class TenantHolds {
  private final Duration hold;
  private final Map<String, Long> untilNanos = new HashMap<>();

  TenantHolds(Duration hold) {
    this.hold = hold;
  }

  /** Whether the agent keyed {@code agentKey} may be ranked at {@code nowNanos}. */
  boolean usable(String agentKey, long nowNanos) {
    if (untilNanos.isEmpty()) {
      return true;
    }
    Long until = untilNanos.get(AgentKeys.tenantOf(agentKey));
    return until == null || nowNanos - until >= 0;
  }

  /**
   * Holds the tenant of {@code agentKey} after {@code denied}, a denial {@linkplain
   * AgentEntity.Denied#byTenant by its tenant}; returns how long.
   */
  Duration hold(String agentKey, AgentEntity.Denied denied, Instant now, long nowNanos) {
    // A gate that did not answer is likely away a while (failing over): a longer hold.
    Duration d =
        AgentEntity.TENANT_GATE_UNAVAILABLE.equals(denied.reason()) ? hold.multipliedBy(4) : hold;
    if (denied.until() != null) {
      Duration left = Duration.between(now, denied.until());
      // Never past the rate window, whatever another node's clock said.
      d = left.compareTo(Permits.WINDOW) > 0 ? Permits.WINDOW : left;
      d = d.compareTo(hold) < 0 ? hold : d;
    }
    untilNanos.merge(AgentKeys.tenantOf(agentKey), nowNanos + d.toNanos(), Math::max);
    return d;
  }

  /**
   * Forgets holds ended by {@code nowNanos}; how long until the next ends, null when none is left.
   */
  Duration forgetEnded(long nowNanos) {
    untilNanos.values().removeIf(until -> nowNanos - until >= 0);
    return untilNanos.values().stream()
        .map(until -> Duration.ofNanos(until - nowNanos))
        .min(Duration::compareTo)
        .orElse(null);
  }
}
