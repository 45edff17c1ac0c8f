package dev.rota.faults.soak;

import dev.rota.faults.history.Event;
import dev.rota.faults.history.Event.Granted;
import dev.rota.faults.history.Event.Outcome;
import dev.rota.faults.history.Event.Published;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The clients' figures of a stretch of a soak, from its history: activations (grants, by runner
 * kind), notifications delivered (keys granted for the first time), the external runners' claim
 * round trips that were assigned, and for each delivered notification the time from its
 * acknowledgement to the grant that first carried it. Pure: a history in, figures out.
 */
record SoakStats(
    long fromMs,
    long toMs,
    int httpActivations,
    int inClusterActivations,
    int delivered,
    long[] claimMs,
    long[] notificationToClaimMs) {

  double seconds() {
    return (toMs - fromMs) / 1000.0;
  }

  double activationsPerSecond() {
    return (httpActivations + inClusterActivations) / seconds();
  }

  double deliveredPerSecond() {
    return delivered / seconds();
  }

  /** The percentile {@code p} (0–100) of sorted values, nearest rank; -1 when there are none. */
  static long percentile(long[] sorted, double p) {
    if (sorted.length == 0) {
      return -1;
    }
    int rank = (int) Math.ceil(p / 100.0 * sorted.length);
    return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))];
  }

  /** One pass over a history, then figures for any stretch of it. */
  static final class Index {
    private final List<Granted> grants = new ArrayList<>();
    private final Map<String, Long> acknowledgedAt = new HashMap<>();
    private final Map<String, Long> firstGranted = new HashMap<>();

    Index(List<Event> history) {
      for (Event event : history) {
        if (event instanceof Published p && p.outcome() == Outcome.OK) {
          acknowledgedAt.merge(p.key(), p.endMs(), Math::min);
        } else if (event instanceof Granted g) {
          grants.add(g);
          for (String key : g.keys()) {
            firstGranted.merge(key, g.endMs(), Math::min);
          }
        }
      }
    }

    /** The figures of {@code [fromMs, toMs)}, by when the grants were answered. */
    SoakStats between(long fromMs, long toMs) {
      int http = 0;
      int inCluster = 0;
      List<Long> claims = new ArrayList<>();
      for (Granted g : grants) {
        if (g.endMs() < fromMs || g.endMs() >= toMs) {
          continue;
        }
        if (WebhookTurns.RUNNER.equals(g.runnerId())) {
          inCluster++;
        } else {
          http++;
          claims.add(g.endMs() - g.startMs());
        }
      }
      List<Long> waits = new ArrayList<>();
      firstGranted.forEach(
          (key, at) -> {
            Long acknowledged = acknowledgedAt.get(key);
            if (at >= fromMs && at < toMs && acknowledged != null) {
              waits.add(Math.max(0, at - acknowledged));
            }
          });
      return new SoakStats(
          fromMs, toMs, http, inCluster, waits.size(), sorted(claims), sorted(waits));
    }

    private static long[] sorted(List<Long> values) {
      long[] array = values.stream().mapToLong(Long::longValue).toArray();
      Arrays.sort(array);
      return array;
    }
  }
}
