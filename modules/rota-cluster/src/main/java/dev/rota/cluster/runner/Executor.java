package dev.rota.cluster.runner;

import java.util.concurrent.CompletionStage;

/**
 * What a {@link Runner} does with an activation: run the agent's turn and say how it ended. Shipped
 * executors are {@code noop}, {@code process} and {@code http} (see {@link ExecutorFactory}); any
 * other class implementing this interface can be named in a pool's {@code executor}.
 *
 * <p>Contract:
 *
 * <ul>
 *   <li>{@code execute} returns at once and never blocks the calling thread, which is an actor's;
 *       blocking work belongs on {@link ExecutorContext#blocking()}.
 *   <li>One instance serves all runners of a pool concurrently, so it must be thread-safe.
 *   <li>A failed stage (or an exception thrown) counts as {@link Outcome#retry}.
 *   <li>A {@link Outcome.Completed} may carry the turn's sends to other agents of the tenant; they
 *       are written with the completion, and only with it.
 *   <li>When the runner gives the activation up (its lease was lost, or the node is leaving past
 *       its deadline) it cancels the returned stage's {@code CompletableFuture}; an executor should
 *       then stop the work it started (kill the process, abort the request).
 * </ul>
 */
@FunctionalInterface
public interface Executor {
  CompletionStage<Outcome> execute(Activation activation);

  /**
   * Told on the runner's thread once the agent has acknowledged the activation's outcome, i.e. the
   * completion or failure is persisted. Not told when the outcome was refused or never reported (a
   * lost lease). For executors that account for activations end to end, such as benchmarks; it must
   * return at once, and what it throws is logged and ignored.
   */
  default void reported(Activation activation, Outcome outcome) {}
}
