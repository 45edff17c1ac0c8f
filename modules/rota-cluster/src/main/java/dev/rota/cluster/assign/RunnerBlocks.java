package dev.rota.cluster.assign;

import dev.rota.cluster.assign.WorkProtocol.Refused;
import dev.rota.cluster.health.RunnerBlock;
import dev.rota.cluster.health.RunnerHealth;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;

/** The runners that get no work, as the runner health singleton last published them. */
final class RunnerBlocks {
  private final Duration blockedRetryAfter;
  private Map<String, RunnerBlock> blocks = Map.of();

  /** {@code blockedRetryAfter}: the most a blocked runner is told to wait before it asks again. */
  RunnerBlocks(Duration blockedRetryAfter) {
    this.blockedRetryAfter = blockedRetryAfter;
  }

  void update(RunnerHealth.Blocks published) {
    blocks = published.blocks();
  }

  /** The answer to a runner whose block is in force at {@code now}; null for any other. */
  Refused refusal(String runnerId, Instant now) {
    RunnerBlock block = blocks.get(runnerId);
    if (block == null || !block.inForce(now)) {
      return null;
    }
    return new Refused(block.status().wireName(), block.retryAfterSeconds(now, blockedRetryAfter));
  }
}
