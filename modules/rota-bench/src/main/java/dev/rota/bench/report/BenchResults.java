package dev.rota.bench.report;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/** Everything one bench run produced; written as results.json and rendered from there. */
public record BenchResults(
    String startedAt,
    double durationSeconds,
    Map<String, Object> environment,
    Map<String, Object> parameters,
    List<SystemResult> systems) {

  public Optional<SystemResult> system(String name) {
    return systems.stream().filter(s -> s.system().equals(name)).findFirst();
  }

  public boolean anyFailed() {
    return systems.stream()
        .anyMatch(
            s ->
                s.status() == Status.FAILED
                    || s.workloads().stream().anyMatch(w -> w.status() == Status.FAILED));
  }
}
