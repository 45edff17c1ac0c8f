package dev.rota.client;

/**
 * Runs one agent's turn for a {@link RotaRunner}, on one of the runner's slot threads.
 *
 * <pre>{@code
 * ActivationHandler handler = activation -> {
 *   for (Assignment.Item n : activation.assignment().notifications()) {
 *     activation.cancellation().throwIfCancelled();
 *     callTheModel(activation.agentId(), n.payload());
 *   }
 *   return Outcome.complete();
 * };
 * }</pre>
 *
 * <p>The runner heartbeats the lease while the handler runs. If the lease is lost or runs out, the
 * runner cancels the {@linkplain Activation#cancellation() token} and interrupts the thread; the
 * handler should return (or throw) promptly and must stop side effects, since another runner may
 * now hold the agent. A handler that throws is reported as {@link Outcome#retry}.
 *
 * <p>What the handler {@linkplain Activation#send sends} and {@linkplain Activation#call calls}
 * goes out with the turn's completion only: a failed or cancelled turn sends nothing.
 */
@FunctionalInterface
public interface ActivationHandler {
  Outcome handle(Activation activation) throws Exception;
}
