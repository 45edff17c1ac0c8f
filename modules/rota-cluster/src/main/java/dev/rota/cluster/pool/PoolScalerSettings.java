package dev.rota.cluster.pool;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import dev.rota.core.model.RunnerMode;
import dev.rota.core.pool.PoolSpec;
import dev.rota.core.pool.ScalingPolicy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * The {@code rota.pools} settings: the pools the scaler sizes and how; {@code reference.conf}
 * documents each key. With no pool configured the scaler sizes one catch-all hybrid pool, {@code
 * default-pool}, so that {@code desired} means something for external runners too. Anything that
 * cannot work is refused with a message naming the key, and the node does not start.
 *
 * @param targetStaleness the target of the capacity answers ({@code runnersForTargetStaleness} in
 *     {@code /admin/stats} and {@code /admin/pools}), and of exploration pools without their own
 */
public record PoolScalerSettings(
    boolean enabled,
    Duration interval,
    Duration askTimeout,
    Duration targetStaleness,
    ScalingPolicy.Settings policy,
    List<PoolSpec> pools,
    boolean configured) {

  public PoolScalerSettings {
    pools = List.copyOf(pools);
  }

  public static PoolScalerSettings from(Config config) {
    Config c = config.getConfig("rota.pools");
    try {
      Duration interval = c.getDuration("interval");
      require(!interval.isNegative() && !interval.isZero(), "rota.pools.interval must be positive");
      Duration askTimeout = c.getDuration("ask-timeout");
      require(
          !askTimeout.isNegative() && !askTimeout.isZero(),
          "rota.pools.ask-timeout must be positive");
      Duration targetStaleness = c.getDuration("target-staleness");
      require(
          !targetStaleness.isNegative() && !targetStaleness.isZero(),
          "rota.pools.target-staleness must be positive");
      ScalingPolicy.Settings policy;
      try {
        policy =
            new ScalingPolicy.Settings(
                c.getDuration("scale-down-delay"), c.getDouble("hysteresis"));
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("rota.pools: " + e.getMessage(), e);
      }
      Config defaults = c.getConfig("pool-defaults");
      List<PoolSpec> pools = new ArrayList<>();
      Set<String> names = new HashSet<>();
      List<? extends Config> configured = c.getConfigList("pools");
      for (int i = 0; i < configured.size(); i++) {
        PoolSpec spec =
            pool(
                configured.get(i).withFallback(defaults),
                "rota.pools.pools[" + i + "]",
                targetStaleness);
        require(names.add(spec.name()), "rota.pools.pools: duplicate name " + spec.name());
        pools.add(spec);
      }
      boolean isConfigured = !pools.isEmpty();
      if (!isConfigured) {
        pools.add(
            pool(
                c.getConfig("default-pool").withFallback(defaults),
                "rota.pools.default-pool",
                targetStaleness));
      }
      return new PoolScalerSettings(
          c.getBoolean("enabled"),
          interval,
          askTimeout,
          targetStaleness,
          policy,
          pools,
          isConfigured);
    } catch (ConfigException e) {
      throw new IllegalArgumentException("rota.pools: " + e.getMessage(), e);
    }
  }

  private static PoolSpec pool(Config pool, String where, Duration targetStaleness) {
    String modeName = pool.getString("mode");
    RunnerMode mode = RunnerMode.fromWire(modeName);
    require(
        mode != null,
        where + ".mode: '" + modeName + "' is not notification, exploration or hybrid");
    List<String> capabilities = pool.getStringList("capabilities");
    boolean any = capabilities.contains("*");
    require(
        !any || capabilities.size() == 1,
        where + ".capabilities: \"*\" (every agent) stands alone");
    Set<String> sorted = new TreeSet<>(any ? List.of() : capabilities);
    String name =
        pool.hasPath("name")
            ? pool.getString("name")
            : mode.wireName() + (sorted.isEmpty() ? "" : "-" + String.join("-", sorted));
    Duration staleness =
        pool.hasPath("target-staleness")
            ? pool.getDuration("target-staleness")
            : mode == RunnerMode.EXPLORATION ? targetStaleness : Duration.ZERO;
    try {
      return new PoolSpec(
          name,
          mode,
          sorted,
          any,
          pool.getInt("min"),
          pool.getInt("max"),
          pool.getDouble("target-utilisation"),
          pool.getDuration("target-inbox-wait"),
          staleness);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(where + ": " + e.getMessage(), e);
    }
  }

  private static void require(boolean condition, String message) {
    if (!condition) {
      throw new IllegalArgumentException(message);
    }
  }
}
