package dev.rota.client;

import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The event streams and subscriptions a {@link RotaClient} opened and that are not closed yet, so
 * that closing the client closes them. Each one leaves by itself when it is closed ({@link
 * #remove}, its close callback). Thread-safe.
 */
final class OpenStreams {
  private final Set<AutoCloseable> open = ConcurrentHashMap.newKeySet();

  /** Keeps {@code stream} until it is closed; returns it. */
  <T extends AutoCloseable> T add(T stream) {
    open.add(stream);
    return stream;
  }

  void remove(AutoCloseable stream) {
    open.remove(stream);
  }

  /** Closes every one still open, best effort. */
  void closeAll() {
    for (AutoCloseable stream : List.copyOf(open)) {
      try {
        stream.close();
      } catch (Exception ignored) {
        // closing is best effort
      }
    }
  }
}
