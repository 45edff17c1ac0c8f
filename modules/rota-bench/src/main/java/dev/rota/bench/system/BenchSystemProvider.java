package dev.rota.bench.system;

/**
 * Names a system, tells whether it can run on this machine, and makes one fresh {@link BenchSystem}
 * per trial.
 */
public interface BenchSystemProvider {

  /** The name used on the command line and in results, e.g. {@code seed-sql}. */
  String name();

  /** One line for the results: what this system is and with which settings. */
  String description();

  /**
   * Checks (and prepares, e.g. installs) what the system needs; called once per bench run before
   * any trial. An unavailable system is reported as skipped with the reason.
   */
  Availability prepare(BenchEnvironment environment);

  /** A new instance for one trial. */
  BenchSystem create(BenchEnvironment environment);
}
