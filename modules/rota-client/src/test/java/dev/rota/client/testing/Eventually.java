package dev.rota.client.testing;

import java.time.Duration;
import java.util.Objects;
import java.util.function.Supplier;
import org.awaitility.Awaitility;

/** Polls a condition that the node reaches asynchronously (the read model, the event feed). */
public final class Eventually {
  private Eventually() {}

  /** Returns the first non-null value of {@code probe}, or fails with {@code what}. */
  public static <T> T await(String what, Duration timeout, Supplier<T> probe) {
    return Awaitility.await(what)
        .atMost(timeout)
        .pollDelay(Duration.ZERO)
        .pollInterval(Duration.ofMillis(50))
        .until(probe::get, Objects::nonNull);
  }
}
