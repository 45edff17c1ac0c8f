package dev.rota.faults.soak;

import dev.rota.faults.soak.SoakSampler.Collection;
import dev.rota.faults.soak.SoakSampler.Sample;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The soak's table, one row per period, and its three long-run checks. Pure: figures in, rows and
 * verdicts out, so that a run too short for a check says "not applicable" rather than passing it.
 *
 * <ul>
 *   <li><b>Database size</b>: from two retention windows on (the journal then holds what retention
 *       keeps), every sample within ±10 % of the mean of the first period's samples after that.
 *       Needs a whole period after the two windows.
 *   <li><b>Throughput</b>: notifications delivered per second in the last 10 minutes within ±20 %
 *       of minutes 10–20 (the producers are paced, so a change either way means the node fell
 *       behind or caught up a backlog). Needs 30 minutes, so the two stretches do not overlap.
 *   <li><b>Latency</b>: notification → claim p99 of the last 10 minutes at most 20 % above minutes
 *       10–20 (lower is no regression). Same 30 minutes.
 * </ul>
 */
final class SoakReport {
  static final double SIZE_BAND = 0.10;
  static final double THROUGHPUT_BAND = 0.20;
  static final double P99_GROWTH = 0.20;

  /** A check's outcome: {@code applicable} false means the run was too short to tell. */
  record Check(String name, boolean applicable, boolean passed, String detail) {
    boolean failed() {
      return applicable && !passed;
    }

    String verdict() {
      return !applicable ? "not applicable" : passed ? "pass" : "FAIL";
    }
  }

  /** One period's row. */
  record Row(
      int fromMinute,
      int toMinute,
      SoakStats stats,
      long heapAfterGcMinBytes,
      long heapAfterGcMaxBytes,
      Sample last,
      int droppedInPeriod) {}

  private SoakReport() {}

  /** The row of {@code [from, to)} minutes after {@code startMs}. */
  static Row row(
      long startMs,
      int fromMinute,
      int toMinute,
      SoakStats.Index index,
      List<Sample> samples,
      List<Collection> collections) {
    long from = startMs + Duration.ofMinutes(fromMinute).toMillis();
    long to = startMs + Duration.ofMinutes(toMinute).toMillis();
    long min = -1;
    long max = -1;
    for (Collection c : collections) {
      if (c.atMs() >= from && c.atMs() < to) {
        min = min < 0 ? c.heapAfterBytes() : Math.min(min, c.heapAfterBytes());
        max = Math.max(max, c.heapAfterBytes());
      }
    }
    Sample before = null;
    Sample last = null;
    for (Sample s : samples) {
      if (s.atMs() < from) {
        before = s;
      } else if (s.atMs() < to) {
        last = s;
      }
    }
    int dropped =
        last == null ? 0 : last.droppedSoFar() - (before == null ? 0 : before.droppedSoFar());
    return new Row(fromMinute, toMinute, index.between(from, to), min, max, last, dropped);
  }

  /** The database size check (see the class comment). */
  static Check databaseSize(
      long startMs, int minutes, Duration retention, Duration period, List<Sample> samples) {
    long settled = startMs + retention.multipliedBy(2).toMillis();
    long end = startMs + Duration.ofMinutes(minutes).toMillis();
    String name = "database size within ±10 % after two retention windows";
    if (settled + period.toMillis() > end) {
      return new Check(
          name,
          false,
          false,
          "needs " + (retention.multipliedBy(2).plus(period).toMinutes()) + " minutes");
    }
    long[] first =
        samples.stream()
            .filter(s -> s.atMs() >= settled && s.atMs() < settled + period.toMillis())
            .mapToLong(Sample::databaseBytes)
            .toArray();
    if (first.length == 0) {
      return new Check(name, true, false, "no sample of the database after two windows");
    }
    double reference = java.util.Arrays.stream(first).average().orElse(0);
    long low = Long.MAX_VALUE;
    long high = 0;
    for (Sample s : samples) {
      if (s.atMs() >= settled && s.atMs() < end) {
        low = Math.min(low, s.databaseBytes());
        high = Math.max(high, s.databaseBytes());
      }
    }
    boolean passed = low >= reference * (1 - SIZE_BAND) && high <= reference * (1 + SIZE_BAND);
    return new Check(
        name,
        true,
        passed,
        String.format(
            Locale.ROOT,
            "reference %s, range %s – %s (%+.1f %% / %+.1f %%)",
            mib(Math.round(reference)),
            mib(low),
            mib(high),
            100 * (low / reference - 1),
            100 * (high / reference - 1)));
  }

  /** The throughput and latency checks: the last 10 minutes against minutes 10–20. */
  static List<Check> lastAgainstEarly(long startMs, int minutes, SoakStats.Index index) {
    String throughput = "throughput (notifications delivered/s), last 10 min within ±20 % of 10–20";
    String latency = "notification → claim p99, last 10 min at most +20 % over 10–20";
    if (minutes < 30) {
      return List.of(
          new Check(throughput, false, false, "needs 30 minutes"),
          new Check(latency, false, false, "needs 30 minutes"));
    }
    long minute = Duration.ofMinutes(1).toMillis();
    SoakStats early = index.between(startMs + 10 * minute, startMs + 20 * minute);
    SoakStats late = index.between(startMs + (minutes - 10) * minute, startMs + minutes * minute);
    double ratio = late.deliveredPerSecond() / early.deliveredPerSecond();
    long earlyP99 = SoakStats.percentile(early.notificationToClaimMs(), 99);
    long lateP99 = SoakStats.percentile(late.notificationToClaimMs(), 99);
    List<Check> checks = new ArrayList<>();
    checks.add(
        new Check(
            throughput,
            true,
            Math.abs(ratio - 1) <= THROUGHPUT_BAND,
            String.format(
                Locale.ROOT,
                "%.1f/s against %.1f/s (%+.1f %%)",
                late.deliveredPerSecond(),
                early.deliveredPerSecond(),
                100 * (ratio - 1))));
    checks.add(
        new Check(
            latency,
            true,
            earlyP99 >= 0 && lateP99 >= 0 && lateP99 <= earlyP99 * (1 + P99_GROWTH),
            String.format(Locale.ROOT, "%d ms against %d ms", lateP99, earlyP99)));
    return checks;
  }

  static String header() {
    return "| minutes | activations/s (HTTP + in-cluster) | delivered/s | claim p50 / p99"
        + " | notification → claim p99 | heap after GC | database | journal rows | dead tuples"
        + " | partitions dropped |\n"
        + "|---|---|---|---|---|---|---|---|---|---|";
  }

  static String line(Row row) {
    SoakStats s = row.stats();
    Sample last = row.last();
    return String.format(
        Locale.ROOT,
        "| %d–%d | %.1f (%.1f + %.1f) | %.1f | %s / %s | %s | %s | %s | %s | %s | %d |",
        row.fromMinute(),
        row.toMinute(),
        s.activationsPerSecond(),
        s.httpActivations() / s.seconds(),
        s.inClusterActivations() / s.seconds(),
        s.deliveredPerSecond(),
        ms(SoakStats.percentile(s.claimMs(), 50)),
        ms(SoakStats.percentile(s.claimMs(), 99)),
        ms(SoakStats.percentile(s.notificationToClaimMs(), 99)),
        row.heapAfterGcMinBytes() < 0
            ? "no GC"
            : mib(row.heapAfterGcMinBytes()) + " – " + mib(row.heapAfterGcMaxBytes()),
        last == null ? "–" : mib(last.databaseBytes()),
        last == null ? "–" : String.format(Locale.ROOT, "%,d", last.journalRows()),
        last == null ? "–" : String.format(Locale.ROOT, "%,d", last.deadTuples()),
        row.droppedInPeriod());
  }

  static String checks(List<Check> checks) {
    StringBuilder out = new StringBuilder("| check | verdict | figures |\n|---|---|---|\n");
    for (Check c : checks) {
      out.append("| ")
          .append(c.name())
          .append(" | ")
          .append(c.verdict())
          .append(" | ")
          .append(c.detail())
          .append(" |\n");
    }
    return out.toString();
  }

  private static String ms(long value) {
    return value < 0 ? "–" : value + " ms";
  }

  static String mib(long bytes) {
    return String.format(Locale.ROOT, "%.1f MiB", bytes / 1048576.0);
  }
}
