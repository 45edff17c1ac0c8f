package dev.rota.cluster.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Collection;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * This node's counter by tenant ({@link RotaMetrics#tenants()}): {@code
 * rota_tenant_activations_total{tenant}}, leases granted to the agents hosted here. The tenant
 * label takes only the names of the tenant table ({@link #tenantsKnown}); any other tenant is
 * counted as {@link #OTHER}, so the series are bounded by configuration, never by input.
 *
 * <p>Runner time and shares are not counted here: the cluster-wide gauges {@code
 * rota_tenant_runner_seconds} and {@code rota_tenant_share_*} show what the dispatcher applies
 * (docs/operations.md).
 */
public final class TenantMeters {
  /** The label of every tenant the tenant table does not know. */
  public static final String OTHER = "other";

  private static final String DEFAULT_TENANT = "default";

  private final MeterRegistry registry;
  private volatile Set<String> labels = Set.of(DEFAULT_TENANT);
  private final Map<String, Counter> activations = new ConcurrentHashMap<>();

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
    activations(label(tenant)).increment();
  }
}
