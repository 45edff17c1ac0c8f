package dev.rota.cluster.runner;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.rota.core.model.RunnerMode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The {@code rota.runners} settings of a node; {@code reference.conf} documents each key. Bounds on
 * pool sizes are applied by the {@link RunnerPool} (clamped with a warning), everything else that
 * cannot work is refused here.
 *
 * @param leaseSeconds the lease length runners ask for; they heartbeat every third of it
 * @param pollWait how long a request for work may wait at the dispatcher (long poll)
 * @param requestGrace added to {@code pollWait} before a request with no answer counts as lost
 * @param askTimeout for heartbeats, completions and failures sent to the agent
 * @param reportAttempts how many times a completion or failure is sent when its ask times out
 * @param shutdownTimeout how long a leaving node lets activations finish before failing them
 * @param heartbeatInterval how often a runner heartbeats its lease; null: every third of it
 */
public record RunnerSettings(
    boolean enabled,
    List<PoolSettings> pools,
    int maxPerNode,
    long leaseSeconds,
    Duration pollWait,
    Duration requestGrace,
    Duration coolDown,
    Duration pausedBackoff,
    Duration askTimeout,
    int reportAttempts,
    Duration shutdownTimeout,
    String blockingDispatcher,
    Duration heartbeatInterval) {

  /** Executors with their own {@code rota.runners.<name>} block; others are class names. */
  public static final Set<String> BUILT_IN_EXECUTORS = Set.of("noop", "process", "http");

  public RunnerSettings {
    pools = List.copyOf(pools);
  }

  /**
   * One pool of identical runners.
   *
   * @param count the runners to start with, before clamping to {@code [min, max]}
   * @param executorSettings {@code rota.runners.<executor>} overlaid by the pool's own settings
   */
  public record PoolSettings(
      String name,
      int count,
      int min,
      int max,
      RunnerMode mode,
      Set<String> capabilities,
      String executor,
      Config executorSettings) {
    public PoolSettings {
      capabilities = Set.copyOf(capabilities);
    }
  }

  /** Reads {@code rota.runners} from the node's whole config. */
  public static RunnerSettings from(Config config) {
    Config c = config.getConfig("rota.runners");
    int maxPerNode = c.getInt("max-per-node");
    require(maxPerNode >= 1, "rota.runners.max-per-node must be at least 1");
    long leaseSeconds = c.getLong("lease-seconds");
    require(
        leaseSeconds >= 5 && leaseSeconds <= 7200, "rota.runners.lease-seconds must be 5..7200");
    int reportAttempts = c.getInt("report-attempts");
    require(reportAttempts >= 1, "rota.runners.report-attempts must be at least 1");
    List<PoolSettings> pools = new ArrayList<>();
    Set<String> names = new HashSet<>();
    for (Config pool : c.getConfigList("pools")) {
      PoolSettings settings = pool(pool, c, maxPerNode);
      require(names.add(settings.name()), "rota.runners.pools: duplicate name " + settings.name());
      pools.add(settings);
    }
    return new RunnerSettings(
        c.getBoolean("enabled"),
        pools,
        maxPerNode,
        leaseSeconds,
        c.getDuration("poll-wait"),
        c.getDuration("request-grace"),
        c.getDuration("cool-down"),
        c.getDuration("paused-backoff"),
        c.getDuration("ask-timeout"),
        reportAttempts,
        c.getDuration("shutdown-timeout"),
        c.getString("blocking-dispatcher"),
        c.hasPath("heartbeat-interval") ? c.getDuration("heartbeat-interval") : null);
  }

  private static PoolSettings pool(Config pool, Config runners, int maxPerNode) {
    String name = pool.getString("name");
    require(
        name.matches("[A-Za-z0-9_.-]{1,64}"),
        "rota.runners.pools: name '" + name + "' must match [A-Za-z0-9_.-]{1,64}");
    String modeName = pool.hasPath("mode") ? pool.getString("mode") : "hybrid";
    RunnerMode mode = RunnerMode.fromWire(modeName);
    require(mode != null, "pool " + name + ": unknown mode '" + modeName + "'");
    String executor = pool.hasPath("executor") ? pool.getString("executor") : "noop";
    Config executorSettings =
        pool.hasPath("executor-settings")
            ? pool.getConfig("executor-settings")
            : ConfigFactory.empty();
    if (BUILT_IN_EXECUTORS.contains(executor)) {
      executorSettings = executorSettings.withFallback(runners.getConfig(executor));
    }
    int min = pool.hasPath("min") ? pool.getInt("min") : 1;
    int max = pool.hasPath("max") ? pool.getInt("max") : maxPerNode;
    require(min >= 0 && min <= max, "pool " + name + ": needs 0 <= min <= max");
    return new PoolSettings(
        name,
        pool.hasPath("count") ? pool.getInt("count") : 4,
        min,
        max,
        mode,
        Set.copyOf(pool.hasPath("capabilities") ? pool.getStringList("capabilities") : List.of()),
        executor,
        executorSettings);
  }

  private static void require(boolean condition, String message) {
    if (!condition) {
      throw new IllegalArgumentException(message);
    }
  }
}
