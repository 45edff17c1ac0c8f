package dev.rota.cluster.journal;

import java.time.Duration;
import javax.sql.DataSource;

/**
 * For retention runs over journals nothing in which is old enough to need a snapshot: no entity can
 * be asked, and asking fails the test.
 */
final class NoSnapshots implements JournalRetention.Snapshots {
  @Override
  public boolean canAsk(String persistenceId) {
    return false;
  }

  @Override
  public void ask(String persistenceId) {
    throw new AssertionError("nothing is old enough to need a snapshot");
  }

  /**
   * A week's retention over {@code dataSource} keeping {@code ahead} partitions of {@code minRows}
   * to {@code maxRows} orderings ahead.
   */
  static JournalRetention retention(DataSource dataSource, int ahead, long minRows, long maxRows) {
    return new JournalRetention(dataSource, weekly(ahead, minRows, maxRows), new NoSnapshots());
  }

  /** The settings {@link #retention} uses. */
  static JournalRetention.Settings weekly(int ahead, long minRows, long maxRows) {
    return new JournalRetention.Settings(
        Duration.ofDays(7), ahead, minRows, maxRows, Duration.ofSeconds(5), 8, 100);
  }
}
