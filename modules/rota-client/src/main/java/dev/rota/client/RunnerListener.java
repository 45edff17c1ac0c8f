package dev.rota.client;

/**
 * Hears what a {@link RotaRunner} does, for metrics and logs. Called on the runner's threads; keep
 * it quick. Every method has an empty default.
 */
public interface RunnerListener {

  /** A lease was granted; called before the handler starts. */
  default void onClaimed(Assignment assignment) {}

  /** The outcome was accepted by the server. */
  default void onReported(Assignment assignment, Outcome outcome) {}

  /** The handler was stopped; nothing (or, for SHUTDOWN, a hand-back) was reported. */
  default void onCancelled(Assignment assignment, CancellationToken.Reason reason) {}

  /**
   * A slot's claim was refused because its runner id is {@code degraded} or {@code draining} (the
   * reason); the slot waits as the server said before it asks again.
   */
  default void onRefused(String slotId, String reason) {}

  /** A call to the server failed; the runner carries on. */
  default void onError(String what, RuntimeException error) {}
}
