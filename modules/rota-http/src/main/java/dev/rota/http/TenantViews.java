package dev.rota.http;

import dev.rota.cluster.metrics.TenantMeters.TenantMinute;
import dev.rota.cluster.readmodel.TenantRow;
import dev.rota.cluster.tenant.TenantUsage;
import dev.rota.core.tenant.TenantSpec;
import dev.rota.core.tenant.TenantTable;
import dev.rota.http.api.TenantView;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The tenant views of {@code GET /admin/tenants}: the directory's table joined with the read model
 * by tenant and with every node's last minute. Runner time is the leases that ended in the minute
 * (counted by the nodes that host their agents) plus the part of the minute the leases held now
 * have run (from the read model); a tenant's actual share is its part of all tenants' runner time.
 * Its fair share is its weight over the weights of the tenants with work (unread notifications) or
 * leases: what the dispatcher's weighted share aims at while they all have work.
 */
final class TenantViews {
  private TenantViews() {}

  static List<TenantView> of(
      TenantTable table,
      Map<String, TenantRow> rows,
      Collection<TenantUsage.Usage> usage,
      Instant now) {
    Map<String, Long> activations = new HashMap<>();
    Map<String, Long> runnerMillis = new HashMap<>();
    for (TenantUsage.Usage node : usage) {
      for (Map.Entry<String, TenantMinute> e : node.tenants().entrySet()) {
        activations.merge(e.getKey(), e.getValue().activations(), Long::sum);
        runnerMillis.merge(e.getKey(), e.getValue().endedRunnerMillis(), Long::sum);
      }
    }
    rows.forEach(
        (tenant, row) -> runnerMillis.merge(tenant, row.heldRunnerMillisLastMinute(), Long::sum));
    long totalMillis = runnerMillis.values().stream().mapToLong(Long::longValue).sum();
    long activeWeights =
        table.all().stream()
            .filter(spec -> active(rows.get(spec.name())))
            .mapToLong(TenantSpec::weight)
            .sum();
    return table.all().stream()
        .map(
            spec -> {
              TenantRow row = rows.get(spec.name());
              double actual =
                  totalMillis == 0
                      ? 0
                      : runnerMillis.getOrDefault(spec.name(), 0L) / (double) totalMillis;
              double fair =
                  active(row) && activeWeights > 0 ? spec.weight() / (double) activeWeights : 0;
              return new TenantView(
                  spec.name(),
                  spec.weight(),
                  spec.maxConcurrent(),
                  spec.maxActivationsPerMinute(),
                  row == null ? 0 : row.agents(),
                  row == null ? 0 : row.unread(),
                  row == null ? 0 : row.leased(),
                  activations.getOrDefault(spec.name(), 0L),
                  new TenantView.Share(rounded(actual), rounded(fair)),
                  row == null ? 0 : ageSeconds(row.oldestUnreadAt(), now));
            })
        .toList();
  }

  /** The view of a tenant just set, before anything is known of its agents. */
  static TenantView ofSpec(TenantSpec spec) {
    return new TenantView(
        spec.name(),
        spec.weight(),
        spec.maxConcurrent(),
        spec.maxActivationsPerMinute(),
        0,
        0,
        0,
        0,
        new TenantView.Share(0, 0),
        0);
  }

  private static boolean active(TenantRow row) {
    return row != null && (row.unread() > 0 || row.leased() > 0);
  }

  private static long ageSeconds(Instant since, Instant now) {
    return since == null || since.isAfter(now) ? 0 : Duration.between(since, now).toSeconds();
  }

  /** Three decimals: a share of a minute is not more precise than that. */
  private static double rounded(double value) {
    return Math.round(value * 1000) / 1000.0;
  }
}
