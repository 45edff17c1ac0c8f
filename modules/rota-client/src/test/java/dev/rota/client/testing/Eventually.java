package dev.rota.client.testing;

import java.time.Duration;
import java.util.function.Supplier;

/** Polls a condition that the node reaches asynchronously (the read model, the event feed). */
public final class Eventually {
  private Eventually() {}

  /** Returns the first non-null value of {@code probe}, or fails with {@code what}. */
  public static <T> T await(String what, Duration timeout, Supplier<T> probe) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      T value = probe.get();
      if (value != null) {
        return value;
      }
      if (System.nanoTime() > deadline) {
        throw new AssertionError("not within " + timeout.toSeconds() + " s: " + what);
      }
      try {
        Thread.sleep(50);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError("interrupted while waiting for " + what);
      }
    }
  }
}
