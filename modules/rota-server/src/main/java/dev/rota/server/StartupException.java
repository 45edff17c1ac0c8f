package dev.rota.server;

/**
 * A node cannot start for a reason the operator can fix (unreachable database, bad setting). The
 * message is one line that says what is wrong; {@link Main} prints it and exits with status 1.
 */
public final class StartupException extends RuntimeException {
  public StartupException(String message) {
    super(message);
  }

  public StartupException(String message, Throwable cause) {
    super(message, cause);
  }
}
