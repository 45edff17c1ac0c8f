package dev.rota.bench.report;

/** How a system or workload run ended. */
public enum Status {
  OK,
  /** The workload does not map onto the system (e.g. fairness for a job queue). */
  NOT_APPLICABLE,
  /** The system cannot run here (e.g. no Node.js); the reason says why. */
  SKIPPED,
  FAILED;

  public String label() {
    return switch (this) {
      case OK -> "ok";
      case NOT_APPLICABLE -> "n/a";
      case SKIPPED -> "skipped";
      case FAILED -> "FAILED";
    };
  }
}
