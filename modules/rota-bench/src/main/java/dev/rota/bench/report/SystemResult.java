package dev.rota.bench.report;

import java.util.List;

/** One system's run: skipped with a reason, or its workloads. */
public record SystemResult(
    String system,
    String description,
    Status status,
    String reason,
    List<WorkloadResult> workloads) {

  public boolean ran() {
    return status == Status.OK || status == Status.FAILED;
  }
}
