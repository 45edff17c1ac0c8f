package dev.rota.cluster.journal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.rota.cluster.testing.TestDatabase;
import java.sql.Connection;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A young journal on PostgreSQL (no mark an eighth of the retention old yet) that writes fast gets
 * partitions sized by the marks' rate, growing step by step, not one of the minimum size after
 * another; and a writer that outruns the maintenance doubles the newest partition's size.
 */
class YoungJournalPartitionsTest {
  private static final long MIN = 100_000;

  @Test
  void aBusyYoungJournalGrowsItsPartitionsAndABurstDoublesThem() throws Exception {
    try (TestDatabase db = TestDatabase.postgres()) {
      JournalRetention retention =
          new JournalRetention(
              db.dataSource(),
              new JournalRetention.Settings(
                  Duration.ofDays(7), 2, MIN, 50_000_000, Duration.ofSeconds(5), 8, 100),
              new NoSnapshots());
      Instant start = Instant.parse("2026-11-28T12:00:00Z");
      retention.run(start);
      // A minute later the journal's rows reach 250,000: at that rate an eighth of the week writes
      // hundreds of millions, so the next partitions are as large as the doubling rule lets them.
      db.execute(
          "insert into event_journal (ordering, deleted, persistence_id, sequence_number, writer,"
              + " write_timestamp, adapter_manifest, event_payload, event_ser_id,"
              + " event_ser_manifest) values (250000, false, 'young', 1, 'test', 0, '', '\\x00',"
              + " 1, '')");
      db.execute("select setval('event_journal_ordering_seq', 250000)");
      retention.run(start.plusSeconds(60));
      try (Connection c = db.dataSource().getConnection()) {
        List<JournalPartitions.Partition> partitions = JournalPartitions.list(c);
        List<Long> sizes = partitions.stream().skip(1).map(p -> p.to() - p.from()).toList();
        assertEquals(List.of(MIN, MIN, 2 * MIN, 2 * MIN), sizes, "partitions: " + partitions);
        assertEquals(4 * MIN, JournalPartitions.burstSize(c));
      }
    }
  }

  @Test
  void aYoungJournalThatWroteNothingYetKeepsTheMinimum() throws Exception {
    try (TestDatabase db = TestDatabase.postgres()) {
      JournalRetention retention =
          new JournalRetention(
              db.dataSource(),
              new JournalRetention.Settings(
                  Duration.ofDays(7), 4, MIN, 50_000_000, Duration.ofSeconds(5), 8, 100),
              new NoSnapshots());
      Instant start = Instant.parse("2026-11-28T12:00:00Z");
      retention.run(start);
      retention.run(start.plusSeconds(60));
      try (Connection c = db.dataSource().getConnection()) {
        List<JournalPartitions.Partition> partitions = JournalPartitions.list(c);
        List<Long> sizes = partitions.stream().skip(1).map(p -> p.to() - p.from()).toList();
        assertEquals(List.of(MIN, MIN, MIN, MIN), sizes, "partitions: " + partitions);
      }
    }
  }

  private static final class NoSnapshots implements JournalRetention.Snapshots {
    @Override
    public boolean canAsk(String persistenceId) {
      return false;
    }

    @Override
    public void ask(String persistenceId) {
      throw new AssertionError("nothing is old enough to need a snapshot");
    }
  }
}
