package dev.rota.client;

/**
 * The answer of {@code POST /v1/claims}: {@code assigned} with an {@link Assignment}, {@code none}
 * when the wait ran out, or {@code paused} while the system is paused.
 */
public record ClaimResult(String status, Assignment assignment) {

  public boolean assigned() {
    return "assigned".equals(status) && assignment != null;
  }

  public boolean paused() {
    return "paused".equals(status);
  }
}
