package dev.rota.bench.rota;

import java.util.concurrent.CompletionStage;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

/**
 * {@link BenchNode}'s seeding window: at most {@code size} events in flight; the first failure
 * fails the lot.
 */
final class SeedWindow {
  private final Semaphore permits;
  private final int size;
  private final AtomicReference<Throwable> failure = new AtomicReference<>();

  SeedWindow(int size) {
    this.size = size;
    this.permits = new Semaphore(size);
  }

  /** Starts an operation of {@code weight} events once the window has room for them. */
  void submit(int weight, Supplier<CompletionStage<?>> operation) throws Exception {
    permits.acquire(weight);
    rethrow();
    operation
        .get()
        .whenComplete(
            (ok, error) -> {
              if (error != null) {
                failure.compareAndSet(null, error);
              }
              permits.release(weight);
            });
  }

  void await() throws Exception {
    if (!permits.tryAcquire(size, BenchNode.ASK_TIMEOUT.toSeconds() * 2, TimeUnit.SECONDS)) {
      throw new IllegalStateException("seeding did not finish in time");
    }
    permits.release(size);
    rethrow();
  }

  private void rethrow() throws Exception {
    Throwable t = failure.get();
    if (t != null) {
      throw new IllegalStateException("seeding failed: " + t, t);
    }
  }
}
