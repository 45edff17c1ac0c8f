package dev.rota.bench.system;

import java.time.Instant;

/**
 * Wall-clock microseconds since the epoch: the one time base for sends and claims, shared with
 * processes outside the JVM on the same machine (Node's {@code performance.timeOrigin +
 * performance.now()}).
 */
public final class BenchClock {

  private BenchClock() {}

  public static long nowMicros() {
    Instant now = Instant.now();
    return now.getEpochSecond() * 1_000_000L + now.getNano() / 1_000;
  }
}
