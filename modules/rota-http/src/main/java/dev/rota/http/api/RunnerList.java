package dev.rota.http.api;

import java.time.Instant;
import java.util.List;

/** The answer of {@code GET /admin/runners}, ordered by runner id. */
public record RunnerList(List<RunnerView> runners) {

  /**
   * One runner.
   *
   * @param node the node an in-cluster runner lives on, null for an external runner
   * @param leaseId the lease it holds, null when idle
   * @param lastSeenAt when it last asked for work (or, in-cluster, renewed its lease)
   */
  public record RunnerView(
      String runnerId,
      String node,
      String mode,
      List<String> capabilities,
      String leaseId,
      Instant lastSeenAt) {}
}
