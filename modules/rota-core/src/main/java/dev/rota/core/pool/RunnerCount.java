package dev.rota.core.pool;

/**
 * The runners of one pool as the scaler last counted them.
 *
 * @param active runners that asked for work within the last minute, hold a lease, or run in an
 *     in-cluster pool
 * @param busy those holding a lease
 * @param busyInbox those holding a lease for inbox (or scheduled) work, not exploration
 */
public record RunnerCount(long active, long busy, long busyInbox) {
  public static final RunnerCount NONE = new RunnerCount(0, 0, 0);

  public RunnerCount plus(RunnerCount other) {
    return new RunnerCount(active + other.active, busy + other.busy, busyInbox + other.busyInbox);
  }
}
