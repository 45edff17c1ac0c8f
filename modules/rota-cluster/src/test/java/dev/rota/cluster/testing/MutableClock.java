package dev.rota.cluster.testing;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/**
 * A clock tests move by hand, so lease expiry and snoozes need no sleeping. It is a wall clock and
 * a monotonic one ({@link #nanos}): {@link #advance} moves both, {@link #skew} only the wall clock,
 * as a node whose clock is set wrong (or is set right again).
 */
public final class MutableClock extends Clock {
  private volatile Instant now;
  private volatile long nanos;

  public MutableClock(Instant start) {
    this.now = start;
  }

  /** Time passes. */
  public void advance(Duration d) {
    now = now.plus(d);
    nanos += d.toNanos();
  }

  /** The wall clock is set by {@code d}; no time passes. */
  public void skew(Duration d) {
    now = now.plus(d);
  }

  /** The monotonic clock, in nanoseconds (for {@code AgentEntity.create}'s {@code nanoTime}). */
  public long nanos() {
    return nanos;
  }

  @Override
  public ZoneId getZone() {
    return ZoneOffset.UTC;
  }

  @Override
  public Clock withZone(ZoneId zone) {
    return this;
  }

  @Override
  public Instant instant() {
    return now;
  }
}
