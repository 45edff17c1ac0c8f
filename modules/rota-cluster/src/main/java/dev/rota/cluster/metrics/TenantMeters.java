package dev.rota.cluster.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Instant;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * This node's meters by tenant ({@link RotaMetrics#tenants()}): {@code
 * rota_tenant_activations_total{tenant}}, and the last minute of each tenant — leases granted to
 * the agents hosted here, and the runner time of their leases that ended — which {@code GET
 * /admin/tenants} adds up over the nodes. The tenant label takes only the names of the tenant table
 * ({@link #tenantsKnown}); any other tenant is counted as {@link #OTHER}, so the series are bounded
 * by configuration, never by input.
 */
public final class TenantMeters {
  /** The label of every tenant the tenant table does not know. */
  public static final String OTHER = "other";

  private static final String DEFAULT_TENANT = "default";
  private static final int WINDOW_SECONDS = 60;

  private final MeterRegistry registry;
  private volatile Set<String> labels = Set.of(DEFAULT_TENANT);
  private final Map<String, Counter> activations = new ConcurrentHashMap<>();
  private final Map<String, PerSecondWindow> recentActivations = new ConcurrentHashMap<>();
  private final Map<String, HeldTimeWindow> recentRunnerTime = new ConcurrentHashMap<>();

  TenantMeters(MeterRegistry registry) {
    this.registry = registry;
    activations(DEFAULT_TENANT);
  }

  /**
   * The tenants a label may name from now on (the node's tenant table); a tenant outside them is
   * labelled {@code other}. Series already written stay.
   */
  public void tenantsKnown(Collection<String> tenants) {
    labels = Set.copyOf(tenants);
    labels.forEach(this::activations);
  }

  /** {@code tenant} itself when the tenant table knows it, {@code other} otherwise. */
  public String label(String tenant) {
    return labels.contains(tenant) ? tenant : OTHER;
  }

  private Counter activations(String label) {
    return activations.computeIfAbsent(
        label,
        t ->
            Counter.builder("rota.tenant.activations")
                .description(
                    "Leases granted to agents of a tenant hosted on this node, by tenant (tenants"
                        + " the tenant table does not know: other)")
                .tag("tenant", t)
                .register(registry));
  }

  /** An agent of {@code tenant} hosted here was granted a lease. */
  public void leaseGranted(String tenant) {
    String label = label(tenant);
    activations(label).increment();
    recentActivations.computeIfAbsent(label, t -> new PerSecondWindow(WINDOW_SECONDS)).increment();
  }

  /**
   * A lease of an agent of {@code tenant} hosted here ended (completed, failed, released or
   * expired): the runner held it from {@code grantedAt} to {@code endedAt}.
   */
  public void leaseEnded(String tenant, Instant grantedAt, Instant endedAt) {
    recentRunnerTime
        .computeIfAbsent(label(tenant), t -> new HeldTimeWindow(WINDOW_SECONDS))
        .add(grantedAt.toEpochMilli(), endedAt.toEpochMilli(), System.currentTimeMillis());
  }

  /**
   * One tenant's last minute on this node: leases granted, and the runner time of the leases that
   * ended (only the part of each inside the minute; leases still held are not in it).
   */
  public record TenantMinute(long activations, long endedRunnerMillis) {}

  /** Every tenant label's last minute on this node; tenants with nothing in it are left out. */
  public Map<String, TenantMinute> lastMinute() {
    long now = System.currentTimeMillis();
    Map<String, TenantMinute> minutes = new HashMap<>();
    Set<String> seen = new HashSet<>(recentActivations.keySet());
    seen.addAll(recentRunnerTime.keySet());
    for (String label : seen) {
      PerSecondWindow granted = recentActivations.get(label);
      HeldTimeWindow held = recentRunnerTime.get(label);
      TenantMinute minute =
          new TenantMinute(
              granted == null ? 0 : granted.total(), held == null ? 0 : held.total(now));
      if (minute.activations() > 0 || minute.endedRunnerMillis() > 0) {
        minutes.put(label, minute);
      }
    }
    return minutes;
  }
}
