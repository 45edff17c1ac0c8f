package dev.rota.http.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.rota.core.health.RunnerStats;
import java.time.Instant;
import java.util.List;

/** The answer of {@code GET /admin/runners}, ordered by runner id. */
public record RunnerList(List<RunnerView> runners) {

  /**
   * One runner.
   *
   * @param node the node an in-cluster runner lives on, null for an external runner
   * @param status idle, executing, degraded or draining
   * @param leaseId the lease it holds, null when idle
   * @param lastSeenAt when it last asked for work (or, in-cluster, renewed its lease)
   * @param stats its figures over the stats window ({@code rota.runner-health.stats-window})
   * @param degraded why and until when it is degraded; absent unless degraded
   */
  public record RunnerView(
      String runnerId,
      String node,
      String mode,
      List<String> capabilities,
      String status,
      String leaseId,
      Instant lastSeenAt,
      RunnerStats stats,
      @JsonInclude(JsonInclude.Include.NON_NULL) Degraded degraded) {

    /** This runner as seen before its health is known: idle or executing, no figures. */
    public RunnerView(
        String runnerId,
        String node,
        String mode,
        List<String> capabilities,
        String leaseId,
        Instant lastSeenAt) {
      this(
          runnerId,
          node,
          mode,
          capabilities,
          leaseId == null ? "idle" : "executing",
          leaseId,
          lastSeenAt,
          RunnerStats.EMPTY,
          null);
    }
  }

  /** A degradation: the runner's own reason or Rota's, since when, and until when. */
  public record Degraded(String reason, Instant since, Instant until) {}
}
