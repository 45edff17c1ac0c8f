package dev.rota.bench.metrics;

import java.util.Arrays;

/**
 * Per-agent completion history for the fairness workload. Staleness is the time since an agent's
 * last completion (since the start for one never activated); the worst is the largest such gap
 * anywhere in the window, including the still-open gap at its end.
 */
public final class FairnessTracker {

  /** What {@link #finish} computes. */
  public record Summary(
      double worstStalenessSeconds,
      long minActivations,
      long maxActivations,
      double meanActivations,
      double stddevActivations,
      int neverActivated) {}

  private final long[] first;
  private final long[] last;
  private final long[] maxGap;
  private final long[] count;

  public FairnessTracker(int agents) {
    first = new long[agents];
    last = new long[agents];
    maxGap = new long[agents];
    count = new long[agents];
  }

  synchronized void completed(int agent, long atMicros) {
    if (agent < 0 || agent >= count.length) {
      return;
    }
    if (count[agent] == 0) {
      first[agent] = atMicros;
    } else {
      maxGap[agent] = Math.max(maxGap[agent], atMicros - last[agent]);
    }
    last[agent] = Math.max(last[agent], atMicros);
    count[agent]++;
  }

  /** Summarises the window [{@code startMicros}, {@code endMicros}]. */
  public synchronized Summary finish(long startMicros, long endMicros) {
    long worst = 0;
    int never = 0;
    for (int a = 0; a < count.length; a++) {
      if (count[a] == 0) {
        never++;
        worst = Math.max(worst, endMicros - startMicros);
        continue;
      }
      long opening = first[a] - startMicros;
      long closing = endMicros - last[a];
      worst = Math.max(worst, Math.max(maxGap[a], Math.max(opening, closing)));
    }
    long min = Arrays.stream(count).min().orElse(0);
    long max = Arrays.stream(count).max().orElse(0);
    double mean = Arrays.stream(count).average().orElse(0);
    double variance =
        Arrays.stream(count).mapToDouble(c -> (c - mean) * (c - mean)).average().orElse(0);
    return new Summary(worst / 1e6, min, max, mean, Math.sqrt(variance), never);
  }
}
