package dev.rota.bench.graphile;

import java.util.Map;

/**
 * The two graphile-worker configurations compared. Both listen for new jobs with LISTEN/NOTIFY
 * (graphile-worker always does) and both drop per-job info logging.
 */
public enum GraphileSettings {
  /**
   * Nothing but the connection: {@code concurrentJobs} 1, {@code maxPoolSize} 10, {@code
   * pollInterval} 2000 ms, prepared statements on, no local queue, unbatched completions.
   */
  DEFAULT("graphile", Map.of()),

  /**
   * The configuration of graphile-worker's performance page (worker.graphile.org/docs/performance):
   * {@code concurrentJobs} 24, {@code maxPoolSize} 25, {@code localQueue.size} 500, {@code
   * completeJobBatchDelay} 0, {@code failJobBatchDelay} 0.
   */
  TUNED(
      "graphile-tuned",
      Map.of(
          "concurrentJobs", 24,
          "maxPoolSize", 25,
          "localQueue", Map.of("size", 500),
          "completeJobBatchDelay", 0,
          "failJobBatchDelay", 0));

  private final String systemName;
  private final Map<String, Object> workerPreset;

  GraphileSettings(String systemName, Map<String, Object> workerPreset) {
    this.systemName = systemName;
    this.workerPreset = workerPreset;
  }

  public String systemName() {
    return systemName;
  }

  /** The {@code preset.worker} options handed to graphile-worker's {@code run()}. */
  public Map<String, Object> workerPreset() {
    return workerPreset;
  }
}
