package dev.rota.cluster.metrics;

import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Milliseconds of runner time in one-second buckets over a sliding window: a lease that ended adds
 * its overlap with each second of the window to that second, so a long lease counts only the part
 * of it the window covers, and the figure shrinks as its seconds leave the window.
 */
final class HeldTimeWindow {
  private final AtomicLongArray millis;
  private final AtomicLongArray seconds;

  HeldTimeWindow(int windowSeconds) {
    millis = new AtomicLongArray(windowSeconds);
    seconds = new AtomicLongArray(windowSeconds);
  }

  /** Adds the time from {@code fromMillis} to {@code toMillis} (epoch milliseconds). */
  void add(long fromMillis, long toMillis, long nowMillis) {
    long windowStart = (nowMillis / 1000 - millis.length() + 1) * 1000;
    long from = Math.max(fromMillis, windowStart);
    long to = Math.min(toMillis, nowMillis);
    for (long second = from / 1000; second * 1000 < to; second++) {
      long overlap = Math.min(to, (second + 1) * 1000) - Math.max(from, second * 1000);
      if (overlap > 0) {
        slotOf(second).addAndGet(slot(second), overlap);
      }
    }
  }

  private AtomicLongArray slotOf(long second) {
    int slot = slot(second);
    long stamp = seconds.get(slot);
    if (stamp != second && seconds.compareAndSet(slot, stamp, second)) {
      millis.set(slot, 0);
    }
    return millis;
  }

  private int slot(long second) {
    return (int) (second % millis.length());
  }

  /** Milliseconds added whose seconds are still in the window at {@code nowMillis}. */
  long total(long nowMillis) {
    long now = nowMillis / 1000;
    long sum = 0;
    for (int i = 0; i < millis.length(); i++) {
      if (now - seconds.get(i) < millis.length()) {
        sum += millis.get(i);
      }
    }
    return sum;
  }
}
