package dev.rota.client;

/**
 * One activation handed to an {@link ActivationHandler}: the {@link Assignment} the server granted
 * and the {@link CancellationToken} that says when to stop.
 *
 * @param runnerId the slot's runner id, as the server knows it
 */
public record Activation(Assignment assignment, CancellationToken cancellation, String runnerId) {

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
