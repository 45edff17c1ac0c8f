package dev.rota.http;

import dev.rota.cluster.readmodel.TenantRow;
import dev.rota.cluster.tenant.TenantSharesView;
import dev.rota.core.tenant.TenantSpec;
import dev.rota.core.tenant.TenantTable;
import dev.rota.http.api.TenantView;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * The tenant views of {@code GET /admin/tenants}: the directory's table joined with the read model
 * by tenant (agents, unread notifications, leases, the oldest unread) and with the shares this
 * node's dispatcher applies ({@link TenantSharesView}: activations, runner time, actual and fair
 * share over about the last minute, across the cluster). Nothing is counted or computed again here,
 * so the view shows what the rule across tenants works on.
 */
final class TenantViews {
  private TenantViews() {}

  static List<TenantView> of(
      TenantTable table, Map<String, TenantRow> rows, TenantSharesView shares, Instant now) {
    return table.all().stream()
        .map(
            spec -> {
              TenantRow row = rows.get(spec.name());
              TenantSharesView.Share share = shares.of(spec.name());
              return new TenantView(
                  spec.name(),
                  spec.weight(),
                  spec.maxConcurrent(),
                  spec.maxActivationsPerMinute(),
                  row == null ? 0 : row.agents(),
                  row == null ? 0 : row.unread(),
                  row == null ? 0 : row.leased(),
                  share == null ? 0 : share.activations(),
                  share == null
                      ? new TenantView.Share(0, 0)
                      : new TenantView.Share(rounded(share.actual()), rounded(share.fair())),
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

  private static long ageSeconds(Instant since, Instant now) {
    return since == null || since.isAfter(now) ? 0 : Duration.between(since, now).toSeconds();
  }

  /** Three decimals: a share of a minute is not more precise than that. */
  static double rounded(double value) {
    return Math.round(value * 1000) / 1000.0;
  }
}
