package dev.rota.bench.report;

import java.util.List;
import java.util.Map;

/**
 * What one workload measured on one system. {@code note} says how the measurement was bounded (e.g.
 * capped by time before draining); {@code details} holds figures that are not compared.
 */
public record WorkloadResult(
    String workload,
    Status status,
    String note,
    List<Metric> metrics,
    Map<String, Object> details) {

  public static WorkloadResult notApplicable(String workload, String why) {
    return new WorkloadResult(workload, Status.NOT_APPLICABLE, why, List.of(), Map.of());
  }

  public static WorkloadResult failed(String workload, String why) {
    return new WorkloadResult(workload, Status.FAILED, why, List.of(), Map.of());
  }
}
