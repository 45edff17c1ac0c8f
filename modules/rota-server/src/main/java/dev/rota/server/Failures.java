package dev.rota.server;

import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/** Turns exceptions into the one-line reasons start-up errors report. */
final class Failures {
  private Failures() {}

  /** The exception inside the wrappers futures add. */
  static Throwable unwrap(Throwable e) {
    Throwable current = e;
    while ((current instanceof CompletionException || current instanceof ExecutionException)
        && current.getCause() != null) {
      current = current.getCause();
    }
    return current;
  }

  /** The first line of the innermost cause's message, or its class name if it has none. */
  static String rootMessage(Throwable e) {
    Throwable root = e;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    return firstLine(root);
  }

  /** The first line of the message, or the class name if there is none. */
  static String firstLine(Throwable e) {
    String message = e.getMessage();
    if (message == null || message.isBlank()) {
      return e.getClass().getSimpleName();
    }
    return message.strip().lines().findFirst().orElse(message);
  }
}
