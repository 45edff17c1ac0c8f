package dev.rota.core.health;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Deque;
import java.util.Iterator;

/**
 * One runner's recent activations: the outcomes within the stats window (at most {@link
 * #MAX_OUTCOMES}, so a fast runner's record stays small) and its current streak of failed or
 * expired activations. Not thread-safe: one actor owns it.
 */
public final class RunnerRecord {
  /** The most outcomes one runner's record keeps; older ones leave the figures early. */
  public static final int MAX_OUTCOMES = 2_000;

  private final Deque<RunnerOutcome> outcomes = new ArrayDeque<>();
  private final Deque<Instant> streak = new ArrayDeque<>();
  private String lastError;
  private Instant lastErrorAt;

  /**
   * Records an outcome and answers whether it completes a streak that degrades the runner under
   * {@code policy}; the streak then starts again, so a restored runner gets a fresh count.
   */
  public boolean record(RunnerOutcome outcome, HealthPolicy policy) {
    outcomes.addLast(outcome);
    while (outcomes.size() > MAX_OUTCOMES) {
      outcomes.removeFirst();
    }
    if (!outcome.kind().bad()) {
      streak.clear();
      return false;
    }
    lastError = outcome.error();
    lastErrorAt = outcome.at();
    streak.addLast(outcome.at());
    while (streak.size() > policy.failuresInARow()) {
      streak.removeFirst();
    }
    if (streak.size() == policy.failuresInARow()
        && Duration.between(streak.peekFirst(), outcome.at()).compareTo(policy.within()) <= 0) {
      streak.clear();
      return true;
    }
    return false;
  }

  /** Starts the streak afresh (an admin restored the runner); returns this record. */
  public RunnerRecord clearStreak() {
    streak.clear();
    return this;
  }

  /** The bad activations in a row so far. */
  public int streak() {
    return streak.size();
  }

  /** The figures over the {@code window} before {@code now}. */
  public RunnerStats stats(Instant now, Duration window) {
    Instant since = now.minus(window);
    Iterator<RunnerOutcome> old = outcomes.iterator();
    while (old.hasNext() && old.next().at().isBefore(since)) {
      old.remove();
    }
    long completed = 0;
    long failed = 0;
    long expired = 0;
    double[] took = new double[outcomes.size()];
    int timed = 0;
    for (RunnerOutcome o : outcomes) {
      switch (o.kind()) {
        case COMPLETED -> completed++;
        case FAILED -> failed++;
        case EXPIRED -> expired++;
      }
      // An expiry's time is its lease length, not the work's: it would distort the figures.
      if (o.kind() != RunnerOutcome.Kind.EXPIRED && o.took() != null) {
        took[timed++] = o.took().toNanos() / 1e9;
      }
    }
    Double mean = null;
    Double p95 = null;
    if (timed > 0) {
      double[] sorted = Arrays.copyOf(took, timed);
      Arrays.sort(sorted);
      mean = round(Arrays.stream(sorted).sum() / timed);
      p95 = round(sorted[Math.max(0, (int) Math.ceil(0.95 * timed) - 1)]);
    }
    boolean errorInWindow = lastErrorAt != null && !lastErrorAt.isBefore(since);
    return new RunnerStats(
        completed,
        failed,
        expired,
        mean,
        p95,
        errorInWindow ? lastError : null,
        errorInWindow ? lastErrorAt : null);
  }

  /** True when nothing in the window is left to show. */
  public boolean isEmpty(Instant now, Duration window) {
    return stats(now, window).equals(RunnerStats.EMPTY) && streak.isEmpty();
  }

  private static double round(double seconds) {
    return Math.round(seconds * 1000) / 1000.0;
  }
}
