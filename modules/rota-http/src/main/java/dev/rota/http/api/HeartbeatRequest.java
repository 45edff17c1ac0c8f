package dev.rota.http.api;

/**
 * The body of {@code POST /v1/leases/{leaseId}/heartbeat}.
 *
 * @param runnerId the runner that claimed the lease
 */
public record HeartbeatRequest(String runnerId) {

  /** The runner id, checked; a 400 naming the field otherwise. */
  public String validatedRunnerId() {
    return Fields.checkRunnerId(runnerId);
  }
}
