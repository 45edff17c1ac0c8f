package dev.rota.cluster.health;

import java.time.Duration;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How many runners may be degraded at once: {@code max-blocks} in all, and {@code
 * max-blocks-per-tenant} of them under one scope — the tenants of the token that reported the
 * runner degraded, or the tenant of the agent whose activations degraded it. So one tenant's
 * runners cannot take every place: past its own cap its next runner is not degraded, and another
 * tenant's still is. A runner already blocked may always be reported again, and an admin's drain is
 * always taken. Each refusal is logged, at most once a minute per cap.
 */
final class BlockCaps {
  private static final Logger log = LoggerFactory.getLogger(BlockCaps.class);
  private static final long WARN_EVERY = Duration.ofMinutes(1).toNanos();

  private final int maxBlocks;
  private final int maxBlocksPerTenant;
  private long lastFullWarning;
  private long lastTenantWarning;

  BlockCaps(int maxBlocks, int maxBlocksPerTenant) {
    this.maxBlocks = maxBlocks;
    this.maxBlocksPerTenant = maxBlocksPerTenant;
  }

  /**
   * Whether {@code runnerId} may not be degraded under {@code scope} (null: no tenant's) now that
   * {@code blocks} are in force, {@code scopes} naming the scope each counts under.
   */
  boolean full(
      Map<String, RunnerBlock> blocks, Map<String, String> scopes, String runnerId, String scope) {
    if (blocks.containsKey(runnerId)) {
      return false;
    }
    if (scope != null) {
      long ofScope = scopes.values().stream().filter(scope::equals).count();
      if (ofScope >= maxBlocksPerTenant) {
        if (due(lastTenantWarning)) {
          lastTenantWarning = System.nanoTime();
          log.warn(
              "{} runners of tenant {} are blocked (rota.runner-health.max-blocks-per-tenant): no"
                  + " further runner of it is degraded until some are restored",
              ofScope,
              scope);
        }
        return true;
      }
    }
    if (blocks.size() < maxBlocks) {
      return false;
    }
    if (due(lastFullWarning)) {
      lastFullWarning = System.nanoTime();
      log.warn(
          "{} runners are blocked (rota.runner-health.max-blocks): no further runner is"
              + " degraded until some are restored",
          blocks.size());
    }
    return true;
  }

  private static boolean due(long last) {
    return last == 0 || System.nanoTime() - last > WARN_EVERY;
  }
}
