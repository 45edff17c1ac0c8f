package dev.rota.bench.scale;

import java.time.Duration;
import java.util.Map;

/**
 * Sizes of the {@code scale} workload.
 *
 * @param agents N, registered over HTTP
 * @param concurrency registrations in flight (one thread each)
 * @param idleWait after registering, how long the agents are left alone before the idle heap is
 *     measured: longer than the node's passivation idle timeout plus its check interval ({@code
 *     pekko.cluster.sharding.passivation.rota-agents}, 60 s + 10 s by default)
 * @param registrationCap registering stops here if not all N are in (a shared machine may be too
 *     slow for a million in the time at hand); the rest of the workload runs with the agents
 *     registered by then, and reports how many that was
 * @param synthetic write N rows into {@code agent_schedule} by SQL instead of registering, and
 *     measure only the restart ({@link SyntheticRestart})
 * @param nodeSettings node settings of this workload on top of {@code --system-option rota.node.*}
 *     (the quick run shortens the idle timeout)
 */
public record ScaleSettings(
    int agents,
    int concurrency,
    Duration idleWait,
    Duration registrationCap,
    boolean synthetic,
    Map<String, String> nodeSettings) {

  /** {@code --scale}: the million. */
  public static final int MILLION = 1_000_000;

  public ScaleSettings {
    if (agents < 1 || concurrency < 1) {
      throw new IllegalArgumentException("scale agents and concurrency must be at least 1");
    }
    nodeSettings = Map.copyOf(nodeSettings);
  }

  public static ScaleSettings defaults() {
    return new ScaleSettings(
        20_000, 64, Duration.ofSeconds(75), Duration.ofHours(2), false, Map.of());
  }

  /** Tiny, with agents passivated after 2 s so the idle heap is measured within seconds. */
  public static ScaleSettings quick() {
    return new ScaleSettings(
        500,
        16,
        Duration.ofSeconds(5),
        Duration.ofMinutes(5),
        false,
        Map.of(
            "pekko.cluster.sharding.passivation.rota-agents.idle-entity.timeout", "2s",
            "pekko.cluster.sharding.passivation.rota-agents.idle-entity.interval", "1s"));
  }

  public ScaleSettings withAgents(int n) {
    return new ScaleSettings(n, concurrency, idleWait, registrationCap, synthetic, nodeSettings);
  }

  public ScaleSettings withRegistrationCap(Duration cap) {
    return new ScaleSettings(agents, concurrency, idleWait, cap, synthetic, nodeSettings);
  }

  public ScaleSettings withSynthetic(boolean on) {
    return new ScaleSettings(agents, concurrency, idleWait, registrationCap, on, nodeSettings);
  }

  /** The node's heap: room for the index and the active agents at any N, never less than 1 GiB. */
  String nodeHeap() {
    long mib = 1024 + agents * 3L / 1024;
    return mib + "m";
  }
}
