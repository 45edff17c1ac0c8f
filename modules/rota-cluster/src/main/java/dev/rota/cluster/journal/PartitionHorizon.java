package dev.rota.cluster.journal;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import javax.sql.DataSource;

/**
 * Keeps the journal's partitions a time ahead of the writes (decision 124, "Created ahead"): run
 * every few seconds, it measures the ordering sequence's rate since its last look and makes sure
 * the partitions above the sequence hold what that rate writes in {@code horizon}, so a writer
 * never meets their end in normal operation (a writer that does creates partitions in its batch's
 * path, which costs the writes around it). A look that finds enough ahead reads the sequence and
 * the catalog and takes no lock. Not thread-safe: one caller (the maintenance singleton).
 */
public final class PartitionHorizon {
  private final DataSource dataSource;
  private final JournalRetention.Settings settings;
  private final Duration horizon;
  private Boolean partitioned;
  private Instant lastAt;
  private long lastValue;

  public PartitionHorizon(
      DataSource dataSource, JournalRetention.Settings settings, Duration horizon) {
    this.dataSource = dataSource;
    this.settings = settings;
    this.horizon = horizon;
  }

  /** One look as of {@code now}; returns how many partitions it created. */
  public int check(Instant now) throws SQLException {
    try (Connection c = dataSource.getConnection()) {
      if (partitioned == null) {
        partitioned = JournalPartitions.partitioned(c);
      }
      if (!partitioned) {
        return 0;
      }
      long current = JournalPartitions.sequenceValue(c);
      long needed =
          lastAt == null
              ? 0
              : PartitionSizing.extrapolated(
                  current - lastValue, Duration.between(lastAt, now), horizon);
      lastAt = now;
      lastValue = current;
      List<JournalPartitions.Partition> partitions = JournalPartitions.list(c);
      if (enoughAhead(partitions, current, settings.partitionsAhead(), needed)) {
        return 0;
      }
      // What the horizon needs, at most twice the newest: across looks partitions keep growing by
      // doubling, rather than starting again from the minimum while the marks show no rate yet.
      JournalPartitions.Partition newest = partitions.get(partitions.size() - 1);
      long newestSize = newest.from() == Long.MIN_VALUE ? 0 : newest.to() - newest.from();
      long size =
          Math.max(
              PartitionSizing.size(c, now, settings),
              PartitionSizing.sized(
                  needed, newestSize, settings.partitionMinRows(), settings.partitionMaxRows()));
      return JournalPartitions.ensureAhead(
          c, settings.partitionsAhead(), size, needed, settings.partitionMaxRows());
    }
  }

  /**
   * Whether at least {@code ahead} partitions lie wholly above {@code current} and together hold
   * {@code need} orderings above it.
   */
  static boolean enoughAhead(
      List<JournalPartitions.Partition> partitions, long current, int ahead, long need) {
    long top = partitions.isEmpty() ? 0 : partitions.get(partitions.size() - 1).to();
    long above = partitions.stream().filter(p -> p.from() > current).count();
    return above >= ahead && top - current >= need;
  }
}
