package dev.rota.client;

/**
 * The answer of {@code POST /v1/claims}: {@code assigned} with an {@link Assignment}, {@code none}
 * when the wait ran out (or, with a {@code reason}, when this runner is {@code degraded} or {@code
 * draining} and should ask again after {@code retryAfterSeconds}), or {@code paused} while the
 * system is paused.
 */
public record ClaimResult(
    String status, Assignment assignment, String reason, Long retryAfterSeconds) {

  public ClaimResult(String status, Assignment assignment) {
    this(status, assignment, null, null);
  }

  public boolean assigned() {
    return "assigned".equals(status) && assignment != null;
  }

  public boolean paused() {
    return "paused".equals(status);
  }

  /** No work because this runner is degraded or draining: {@link #reason()} says which. */
  public boolean refused() {
    return "none".equals(status) && reason != null;
  }
}
