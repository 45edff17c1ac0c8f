package dev.rota.cluster.journal;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

/** How big the journal's maintenance makes a new partition (decision 124, "Created ahead"). */
final class PartitionSizing {
  private PartitionSizing() {}

  /**
   * About an eighth of the retention at the rate of the marks (orderings taken in the last eighth),
   * between the minimum and the maximum: the retention spans about eight partitions at any load.
   * While no mark is an eighth old (a young journal: the first 21 hours of the default week), the
   * marks' own rate (oldest to newest, both the rows' highest ordering, so a jump of the sequence
   * that no row has passed yet does not count) stands for it: a busy young journal would otherwise
   * fill with partitions of the minimum size, every one of which each recovery reads.
   */
  static long size(Connection c, Instant now, JournalRetention.Settings settings)
      throws SQLException {
    Duration eighth = settings.retention().dividedBy(8);
    long then = JournalMarks.cutoff(c, now.minus(eighth));
    long written;
    if (then >= 0) {
      written = JournalPartitions.sequenceValue(c) - then;
    } else {
      JournalMarks.Mark oldest = JournalMarks.edge(c, false);
      JournalMarks.Mark newest = JournalMarks.edge(c, true);
      written =
          oldest == null
              ? 0
              : extrapolated(
                  newest.ordering() - oldest.ordering(),
                  Duration.between(oldest.takenAt(), newest.takenAt()),
                  eighth);
    }
    List<JournalPartitions.Partition> partitions = JournalPartitions.list(c);
    JournalPartitions.Partition newest =
        partitions.isEmpty() ? null : partitions.get(partitions.size() - 1);
    long newestSize =
        newest == null || newest.from() == Long.MIN_VALUE ? 0 : newest.to() - newest.from();
    return sized(written, newestSize, settings.partitionMinRows(), settings.partitionMaxRows());
  }

  /**
   * What {@code window} would have written at the rate of {@code written} orderings over {@code
   * over}; 0 when {@code over} is too short to tell a rate (under a second: the run's own mark).
   */
  static long extrapolated(long written, Duration over, Duration window) {
    if (over.toMillis() < 1_000 || written <= 0) {
      return 0;
    }
    double rate = (double) written / over.toMillis();
    return (long) Math.min(Long.MAX_VALUE / 2.0, rate * window.toMillis());
  }

  /**
   * A new partition's size: what the last eighth of the retention wrote, between the minimum and
   * the maximum, and at most twice the newest partition's ({@code newest}, 0 when none is sized),
   * so a burst or a jump of the ordering sequence grows partitions step by step instead of making
   * one that holds many retention windows (it could go only once all of it is old).
   */
  static long sized(long written, long newest, long min, long max) {
    long size = newest > 0 ? Math.min(written, 2 * newest) : written;
    return Math.max(min, Math.min(max, size));
  }
}
