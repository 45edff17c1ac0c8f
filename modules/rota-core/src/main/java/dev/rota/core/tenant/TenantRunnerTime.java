package dev.rota.core.tenant;

import java.util.HashMap;
import java.util.Map;

/**
 * The one count of the runner time each tenant's agents take: a coordinator keeps one for its
 * partition, sees every agent's row go leased and back ({@link #changed}), and so knows when each
 * lease started and ended without asking anyone. Published with the partition's heads ({@link
 * TenantLoad}), it is what every dispatcher's {@link TenantShares} adds up: the rule across
 * tenants, the admin's tenant view and the tenant metrics all read runner time from here, whichever
 * node granted the leases and whichever node hosts the agents.
 *
 * <p>A partition that has only ever held agents of the default tenant publishes nothing, so a node
 * without tenants publishes exactly what it published before tenants existed. Not thread-safe; one
 * actor owns it.
 */
public final class TenantRunnerTime {
  private static final class Counts {
    int leased;
    long startedMillisSum;
    long endedMillis;
    long ended;
    long grants;
  }

  private final Map<String, Counts> byTenant = new HashMap<>();

  /** When each leased agent's lease started (as this coordinator learned it). */
  private final Map<String, Long> leasedSince = new HashMap<>();

  private boolean tenanted;
  private long version;

  /**
   * The row of the agent {@code key} changed at {@code nowMillis}: it was leased ({@code was}) and
   * is now ({@code is}); {@code present} is false when the agent was removed.
   */
  public void changed(String key, boolean was, boolean is, boolean present, long nowMillis) {
    if (!tenanted && present && key.indexOf('/') >= 0) {
      tenanted = true;
      version++;
    }
    if (was == is) {
      return;
    }
    Counts counts = byTenant.computeIfAbsent(AgentKeys.tenantOf(key), t -> new Counts());
    version++;
    if (is) {
      counts.leased++;
      counts.grants++;
      counts.startedMillisSum += nowMillis;
      leasedSince.put(key, nowMillis);
    } else {
      Long since = leasedSince.remove(key);
      long start = since == null ? nowMillis : since;
      counts.leased--;
      counts.startedMillisSum -= start;
      counts.ended++;
      counts.endedMillis += Math.max(0, nowMillis - start);
    }
  }

  /** Changes with every lease started or ended: a publication is due when it moved. */
  public long version() {
    return version;
  }

  /**
   * Every tenant's load at {@code nowMillis}; empty while the partition has only ever held agents
   * of the default tenant.
   */
  public Map<String, TenantLoad> snapshot(long nowMillis) {
    if (!tenanted) {
      return Map.of();
    }
    Map<String, TenantLoad> loads = new HashMap<>(byTenant.size() * 2);
    byTenant.forEach(
        (tenant, c) ->
            loads.put(
                tenant,
                new TenantLoad(
                    c.leased,
                    Math.max(0, c.leased * nowMillis - c.startedMillisSum),
                    c.endedMillis,
                    c.ended,
                    c.grants)));
    return loads;
  }

  /** Whether the partition has held an agent of a tenant other than {@link Tenants#DEFAULT}. */
  public boolean tenanted() {
    return tenanted;
  }
}
