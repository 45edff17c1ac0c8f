package dev.rota.client;

/**
 * One activation handed to an {@link ActivationHandler}: the {@link Assignment} the server granted
 * and the {@link CancellationToken} that says when to stop.
 *
 * @param runnerId the slot's runner id, as the server knows it
 * @param input the notifications steered into this turn while it runs ({@code newInput: steer}); an
 *     interrupt ({@code newInput: interrupt}) cancels the token with {@link
 *     CancellationToken.Reason#INTERRUPTED}
 */
public record Activation(
    Assignment assignment, CancellationToken cancellation, String runnerId, TurnInput input) {

  public Activation(Assignment assignment, CancellationToken cancellation, String runnerId) {
    this(assignment, cancellation, runnerId, new TurnInput());
  }

  public String agentId() {
    return assignment.agentId();
  }

  public String leaseId() {
    return assignment.leaseId();
  }

  public boolean isCancelled() {
    return cancellation.isCancelled();
  }
}
