package dev.rota.bench.workload;

import dev.rota.bench.metrics.Recorder;
import dev.rota.bench.system.BenchClock;
import java.time.Duration;
import java.util.function.BooleanSupplier;

/** Waiting helpers shared by the workloads: time windows start at the first claim. */
final class Measurement {

  private static final long TICK_MILLIS = 50;

  private Measurement() {}

  /**
   * Waits for the first claim and returns its time; a system that claims nothing within {@code
   * timeout} fails the workload rather than report a rate of zero.
   */
  static long firstClaim(Recorder recorder, Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (recorder.firstClaimMicros() == 0) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(
            "no runner claimed anything within " + timeout.toSeconds() + " s");
      }
      Thread.sleep(TICK_MILLIS / 5);
    }
    return recorder.firstClaimMicros();
  }

  /** Waits until {@code done} or until {@code windowEndMicros}; true when {@code done}. */
  static boolean until(BooleanSupplier done, long windowEndMicros) throws InterruptedException {
    return until(done, windowEndMicros, TICK_MILLIS);
  }

  /** {@link #until(BooleanSupplier, long)}, looking every {@code tickMillis}. */
  static boolean until(BooleanSupplier done, long windowEndMicros, long tickMillis)
      throws InterruptedException {
    while (BenchClock.nowMicros() < windowEndMicros) {
      if (done.getAsBoolean()) {
        return true;
      }
      Thread.sleep(tickMillis);
    }
    return done.getAsBoolean();
  }

  static double seconds(long fromMicros, long toMicros) {
    return Math.max(1e-6, (toMicros - fromMicros) / 1e6);
  }

  static String percent(double part, double whole) {
    return whole <= 0 ? "–" : String.format(java.util.Locale.ROOT, "%.0f%%", 100.0 * part / whole);
  }
}
