package dev.rota.cluster.health;

import com.typesafe.config.Config;
import dev.rota.core.health.HealthPolicy;
import java.time.Duration;

/**
 * {@code rota.runner-health}: when a runner is degraded on its own record, how long a self-reported
 * degradation may last, and how long a retry avoids the runner that failed it.
 *
 * @param retryAvoidWindow a retried activation is not given to the runner that failed it within
 *     this time of the failure while another runner may take it; zero turns avoidance off
 * @param maxReportSeconds the longest degradation a runner may report for itself
 * @param blockedRetryAfter the most a degraded or draining runner is told to wait before it asks
 *     again
 * @param maxBlocks the most runners blocked at once by degradation (their own report or their
 *     record); past it no further runner is degraded, so that the blocks the singleton publishes
 *     every second stay far below Artery's frame size. An admin's drain is always taken.
 * @param maxBlocksPerTenant the most of those degraded under one tenant's scope (the tenants of the
 *     token that reported it, or the tenant of the agent whose activations degraded it), so that
 *     one tenant's runners cannot take every place
 */
public record HealthSettings(
    HealthPolicy policy,
    Duration retryAvoidWindow,
    long maxReportSeconds,
    Duration blockedRetryAfter,
    int maxBlocks,
    int maxBlocksPerTenant) {

  public static final int DEFAULT_MAX_BLOCKS = 256;
  public static final int DEFAULT_MAX_BLOCKS_PER_TENANT = 32;

  public HealthSettings {
    if (maxBlocks < 1 || maxBlocksPerTenant < 1) {
      throw new IllegalArgumentException(
          "rota.runner-health.max-blocks and max-blocks-per-tenant must be at least 1");
    }
  }

  public HealthSettings(
      HealthPolicy policy,
      Duration retryAvoidWindow,
      long maxReportSeconds,
      Duration blockedRetryAfter,
      int maxBlocks) {
    this(
        policy,
        retryAvoidWindow,
        maxReportSeconds,
        blockedRetryAfter,
        maxBlocks,
        Math.min(maxBlocks, DEFAULT_MAX_BLOCKS_PER_TENANT));
  }

  public HealthSettings(
      HealthPolicy policy,
      Duration retryAvoidWindow,
      long maxReportSeconds,
      Duration blockedRetryAfter) {
    this(policy, retryAvoidWindow, maxReportSeconds, blockedRetryAfter, DEFAULT_MAX_BLOCKS);
  }

  public static HealthSettings from(Config config) {
    Config c = config.getConfig("rota.runner-health");
    return new HealthSettings(
        new HealthPolicy(
            c.getInt("degrade-after-failures"),
            c.getDuration("degrade-within"),
            c.getDuration("degraded-for"),
            c.getDuration("stats-window")),
        c.getDuration("retry-avoid-window"),
        c.getLong("max-report-seconds"),
        c.getDuration("blocked-retry-after"),
        c.hasPath("max-blocks") ? c.getInt("max-blocks") : DEFAULT_MAX_BLOCKS,
        c.hasPath("max-blocks-per-tenant")
            ? c.getInt("max-blocks-per-tenant")
            : DEFAULT_MAX_BLOCKS_PER_TENANT);
  }
}
