package dev.rota.cluster.metrics;

import java.util.concurrent.atomic.AtomicLongArray;

/** Counts events in one-second buckets over a sliding window; constant memory at any rate. */
final class PerSecondWindow {
  private final AtomicLongArray counts;
  private final AtomicLongArray seconds;

  PerSecondWindow(int windowSeconds) {
    counts = new AtomicLongArray(windowSeconds);
    seconds = new AtomicLongArray(windowSeconds);
  }

  void increment() {
    long second = System.currentTimeMillis() / 1000;
    int slot = (int) (second % counts.length());
    long stamp = seconds.get(slot);
    if (stamp != second && seconds.compareAndSet(slot, stamp, second)) {
      counts.set(slot, 0);
    }
    counts.incrementAndGet(slot);
  }

  long total() {
    long now = System.currentTimeMillis() / 1000;
    long sum = 0;
    for (int i = 0; i < counts.length(); i++) {
      if (now - seconds.get(i) < counts.length()) {
        sum += counts.get(i);
      }
    }
    return sum;
  }
}
