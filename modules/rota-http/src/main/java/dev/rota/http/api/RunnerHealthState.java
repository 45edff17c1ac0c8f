package dev.rota.http.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.rota.cluster.health.RunnerBlock;
import dev.rota.cluster.health.RunnerHealth;
import java.time.Instant;

/**
 * The answer of the runner health, drain and restore requests: the runner's state afterwards.
 *
 * @param status {@code healthy}, {@code degraded} or {@code draining}
 * @param degraded why and until when, only when degraded
 */
public record RunnerHealthState(
    String runnerId,
    String status,
    @JsonInclude(JsonInclude.Include.NON_NULL) RunnerList.Degraded degraded) {

  public static RunnerHealthState of(RunnerHealth.RunnerState state) {
    RunnerBlock block = state.block();
    if (block == null || !block.inForce(Instant.now())) {
      return new RunnerHealthState(state.runnerId(), "healthy", null);
    }
    return new RunnerHealthState(
        state.runnerId(),
        block.status().wireName(),
        block.status() == RunnerBlock.Status.DEGRADED
            ? new RunnerList.Degraded(block.reason(), block.since(), block.until())
            : null);
  }
}
