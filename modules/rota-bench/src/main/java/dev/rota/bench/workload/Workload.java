package dev.rota.bench.workload;

import dev.rota.bench.report.WorkloadResult;
import dev.rota.core.model.RunnerMode;

/** One workload, written once and driven identically for every system through {@link Trials}. */
public interface Workload {

  /** The name used on the command line and in results. */
  String name();

  /** The runner mode it needs; a system that lacks it gets n/a. */
  RunnerMode mode();

  WorkloadResult run(Trials trials) throws Exception;
}
