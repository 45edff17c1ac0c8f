package dev.rota.http;

import dev.rota.cluster.metrics.RotaMetrics;
import dev.rota.cluster.metrics.TenantMeters;
import dev.rota.cluster.readmodel.TenantRow;
import dev.rota.cluster.tenant.TenantSharesView;
import dev.rota.core.tenant.TenantTable;
import io.micrometer.core.instrument.Tags;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The cluster-wide gauges by tenant, set by {@link MetricsSampler}: from the read model {@code
 * rota_tenant_agents}, {@code rota_tenant_unread}, {@code rota_tenant_leased} and {@code
 * rota_tenant_oldest_unread_age_seconds}; from the shares this node's dispatcher applies ({@link
 * TenantSharesView}, what {@code GET /admin/tenants} shows) {@code rota_tenant_runner_seconds},
 * {@code rota_tenant_share_actual} and {@code rota_tenant_share_fair}, over about the last minute.
 * The tenant label takes only the names of the tenant table (configuration and the admins'
 * tenants), and {@code other} for agents of any tenant the table does not know, so the number of
 * series is bounded by configuration, never by input. A tenant that leaves the table reads 0.
 */
final class TenantGauges {
  private static final String[][] GAUGES = {
    {"rota.tenant.agents", "Registered agents of a tenant"},
    {"rota.tenant.unread", "Unread notifications over a tenant's agents"},
    {"rota.tenant.leased", "Leases a tenant's agents hold"},
    {
      "rota.tenant.oldest.unread.age.seconds",
      "How long the oldest unread notification of a tenant's agents has waited"
    },
    {
      "rota.tenant.runner.seconds",
      "Runner time a tenant's agents' leases took over about the last minute, across the cluster"
    },
    {"rota.tenant.share.actual", "A tenant's part of all tenants' runner time, 0-1"},
    {"rota.tenant.share.fair", "A tenant's weight over the weights of the tenants in contention"},
  };

  private final RotaMetrics metrics;
  private final Map<String, Double> values = new ConcurrentHashMap<>();
  private final Set<String> registered = ConcurrentHashMap.newKeySet();

  TenantGauges(RotaMetrics metrics) {
    this.metrics = metrics;
  }

  /**
   * One sample: every tenant of {@code table}, and {@code other}, from {@code rows} and {@code
   * shares}.
   */
  void set(TenantTable table, Map<String, TenantRow> rows, TenantSharesView shares, Instant now) {
    Map<String, double[]> byLabel = new HashMap<>();
    for (String tenant : table.tenants().keySet()) {
      byLabel.put(tenant, new double[GAUGES.length]);
    }
    byLabel.put(TenantMeters.OTHER, new double[GAUGES.length]);
    for (TenantRow row : rows.values()) {
      String label = table.exists(row.tenant()) ? row.tenant() : TenantMeters.OTHER;
      double[] figures = byLabel.get(label);
      figures[0] += row.agents();
      figures[1] += row.unread();
      figures[2] += row.leased();
      double age =
          row.oldestUnreadAt() == null || row.oldestUnreadAt().isAfter(now)
              ? 0
              : Duration.between(row.oldestUnreadAt(), now).toMillis() / 1000.0;
      figures[3] = Math.max(figures[3], age);
    }
    for (TenantSharesView.Share share : shares.tenants()) {
      double[] figures =
          byLabel.get(table.exists(share.tenant()) ? share.tenant() : TenantMeters.OTHER);
      figures[4] += share.runnerSeconds();
      figures[5] += share.actual();
      figures[6] += share.fair();
    }
    for (String key : values.keySet()) {
      if (!byLabel.containsKey(labelOf(key))) {
        values.put(key, 0.0);
      }
    }
    byLabel.forEach(
        (label, figures) -> {
          for (int i = 0; i < GAUGES.length; i++) {
            String key = key(GAUGES[i][0], label);
            values.put(key, figures[i]);
            if (registered.add(key)) {
              metrics.gauge(
                  GAUGES[i][0],
                  GAUGES[i][1] + " (tenants the tenant table does not know: other)",
                  Tags.of("tenant", label),
                  () -> values.getOrDefault(key, 0.0));
            }
          }
        });
  }

  private static String key(String name, String label) {
    return name + " " + label;
  }

  private static String labelOf(String key) {
    return key.substring(key.indexOf(' ') + 1);
  }
}
