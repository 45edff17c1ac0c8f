package dev.rota.bench.system;

/**
 * Receives every activation of a system's runners. Implementations are thread-safe: systems call it
 * from their runner threads (or from the thread reading an external process's output).
 */
public interface RunnerListener {

  /** A runner holds an activation (the claim is committed). */
  void onClaim(ClaimedActivation claim);

  /** The activation's completion is durable: its notifications are read. */
  void onComplete(Completion completion);
}
