package dev.rota.cluster.tenant;

import dev.rota.cluster.CborSerializable;
import dev.rota.core.tenant.TenantShares;
import java.util.List;

/**
 * Each tenant's share of runner time over about the last minute, across the cluster, as a node's
 * dispatcher knows it and applies it ({@link TenantShares}, on the runner time every partition's
 * coordinator counts). The admin's tenant view ({@code GET /admin/tenants}), the {@code
 * rota_tenant_share_*} and {@code rota_tenant_runner_seconds} gauges and the bench all show this
 * answer, so they cannot disagree with the rule that is applied.
 *
 * @param windowSeconds the window the shares are over (up to about 60; less on a dispatcher started
 *     more recently)
 */
public record TenantSharesView(double windowSeconds, List<Share> tenants)
    implements CborSerializable {

  public TenantSharesView {
    tenants = List.copyOf(tenants);
  }

  /** One tenant's use of runners over the window ({@link TenantShares.Share}). */
  public record Share(
      String tenant,
      int weight,
      long activations,
      double runnerSeconds,
      double actual,
      double fair,
      int leased)
      implements CborSerializable {}

  /** The view of a dispatcher's window. */
  public static TenantSharesView of(TenantShares.Window window) {
    return new TenantSharesView(
        window.seconds(),
        window.shares().stream()
            .map(
                s ->
                    new Share(
                        s.tenant(),
                        s.weight(),
                        s.activations(),
                        s.runnerSeconds(),
                        s.actual(),
                        s.fair(),
                        s.leased()))
            .toList());
  }

  /** The share of {@code tenant}, or null when the window names no such tenant. */
  public Share of(String tenant) {
    return tenants.stream().filter(s -> s.tenant().equals(tenant)).findFirst().orElse(null);
  }
}
