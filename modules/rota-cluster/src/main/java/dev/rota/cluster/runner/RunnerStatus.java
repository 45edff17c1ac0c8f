package dev.rota.cluster.runner;

import dev.rota.cluster.CborSerializable;
import dev.rota.core.model.RunnerMode;
import java.time.Instant;
import java.util.Set;

/**
 * What one in-cluster runner is doing, for {@code GET /admin/runners} and the runner gauges.
 *
 * @param draining told to stop: it takes no new work and stops once it holds none
 * @param leaseId the activation it holds, null when idle
 * @param agentId the agent of that activation, null when idle
 * @param lastSeenAt when it last asked for work or renewed its lease
 * @param completed activations it completed
 * @param failed activations it failed (the executor said so, or the node was leaving)
 * @param abandoned activations whose lease it lost before it could report them
 */
public record RunnerStatus(
    String runnerId,
    String node,
    String pool,
    RunnerMode mode,
    Set<String> capabilities,
    Activity activity,
    boolean draining,
    String leaseId,
    String agentId,
    Instant lastSeenAt,
    long completed,
    long failed,
    long abandoned)
    implements CborSerializable {

  public RunnerStatus {
    capabilities = Set.copyOf(capabilities);
  }

  /** Where a runner is in its loop. */
  public enum Activity {
    /** Waiting for the dispatcher to answer a request for work (long poll). */
    REQUESTING,
    /** The system is paused, or the dispatcher did not answer: asking again shortly. */
    BACKING_OFF,
    /** Running an activation through its executor, heartbeating the lease. */
    EXECUTING,
    /** Telling the agent how the activation ended. */
    REPORTING,
    /** Resting between activations ({@code rota.runners.cool-down}). */
    COOLING_DOWN
  }

  public boolean busy() {
    return leaseId != null;
  }
}
