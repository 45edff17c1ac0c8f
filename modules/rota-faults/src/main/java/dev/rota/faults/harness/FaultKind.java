package dev.rota.faults.harness;

/** The faults the suite injects. */
public enum FaultKind {
  /** SIGKILL of one node; restarted after the observation time. */
  KILL_9("kill-9", true),
  /**
   * SIGSTOP of one node for longer than failure detection plus the resolver's stable-after, so the
   * others down it; then SIGCONT. The node must exit (non-zero) instead of working on.
   */
  SIGSTOP("sigstop", true),
  /**
   * PostgreSQL stopped with {@code -m immediate} (as a crash) and started again 3 s later (15 s in
   * every third run).
   */
  POSTGRES_RESTART("postgres-restart", false),
  /** Every node in turn: SIGTERM, wait for it to exit, start it again, wait until ready. */
  ROLLING_RESTART("rolling-restart", false);

  private final String label;
  private final boolean bounded;

  FaultKind(String label, boolean bounded) {
    this.label = label;
    this.bounded = bounded;
  }

  public String label() {
    return label;
  }

  /**
   * Whether the agents of the node it hits must be served again within the availability bound (the
   * issue's "killed or frozen node"); the other faults' windows are reported only.
   */
  public boolean bounded() {
    return bounded;
  }
}
