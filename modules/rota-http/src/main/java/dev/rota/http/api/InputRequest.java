package dev.rota.http.api;

/**
 * The body of {@code POST /v1/leases/{leaseId}/input}.
 *
 * @param runnerId the runner that claimed the lease
 * @param waitSeconds how long to wait for new input, 0–60 (0 when absent: answer at once)
 */
public record InputRequest(String runnerId, Integer waitSeconds) {
  public static final int MAX_WAIT_SECONDS = 60;

  /** The runner id, checked; a 400 naming the field otherwise. */
  public String validatedRunnerId() {
    return Fields.checkRunnerId(runnerId);
  }

  /** The wait, checked; a 400 naming the field otherwise. */
  public int validatedWaitSeconds() {
    Fields.checkRange("waitSeconds", waitSeconds, 0, MAX_WAIT_SECONDS);
    return waitSeconds == null ? 0 : waitSeconds;
  }
}
