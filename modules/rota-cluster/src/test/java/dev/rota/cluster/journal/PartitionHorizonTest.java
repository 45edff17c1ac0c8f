package dev.rota.cluster.journal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.cluster.testing.TestDatabase;
import java.sql.Connection;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The look between the maintenance's runs keeps partitions a time ahead of the writes at their
 * measured rate, growing the new ones by doubling, and does nothing while enough lie ahead.
 */
class PartitionHorizonTest {
  private static final long MIN = 100_000;
  private static final Duration HORIZON = Duration.ofMinutes(2);
  private static final JournalRetention.Settings SETTINGS = NoSnapshots.weekly(2, MIN, 50_000_000);

  @Test
  void aFastSequenceGetsPartitionsForTheHorizonAtItsRate() throws Exception {
    try (TestDatabase db = TestDatabase.postgres()) {
      PartitionHorizon horizon = new PartitionHorizon(db.dataSource(), SETTINGS, HORIZON);
      Instant start = Instant.parse("2026-11-28T12:00:00Z");
      assertEquals(0, horizon.check(start), "V13's two partitions lie ahead of an empty journal");
      // 150,000 orderings in five seconds: two minutes at that rate write 3.6 million.
      long current = 150_000;
      db.execute("select setval('event_journal_ordering_seq', " + current + ")");
      int created = horizon.check(start.plusSeconds(5));
      List<JournalPartitions.Partition> partitions;
      try (Connection c = db.dataSource().getConnection()) {
        partitions = JournalPartitions.list(c);
      }
      long top = partitions.get(partitions.size() - 1).to();
      assertTrue(top - current >= 3_600_000, "partitions: " + partitions);
      List<Long> made =
          partitions.subList(partitions.size() - created, partitions.size()).stream()
              .map(p -> p.to() - p.from())
              .toList();
      assertEquals(2 * MIN, made.get(0), "the first is twice the newest of V13's: " + made);
      for (int i = 1; i < made.size(); i++) {
        assertTrue(
            made.get(i) >= made.get(i - 1) && made.get(i) <= 2 * made.get(i - 1),
            "each at most doubles the one before: " + made);
      }
      assertTrue(created < 10, "doubling reaches the horizon in a few: " + made);
      // The sequence stood still: nothing more is needed.
      assertEquals(0, horizon.check(start.plusSeconds(10)));
      try (Connection c = db.dataSource().getConnection()) {
        assertEquals(partitions, JournalPartitions.list(c));
      }
    }
  }

  @Test
  void enoughAheadNeedsTheCountAndTheHorizon() {
    List<JournalPartitions.Partition> partitions =
        List.of(
            new JournalPartitions.Partition("event_journal_p0", Long.MIN_VALUE, 100),
            new JournalPartitions.Partition("event_journal_100", 100, 200),
            new JournalPartitions.Partition("event_journal_200", 200, 300));
    assertTrue(PartitionHorizon.enoughAhead(partitions, 50, 2, 250));
    assertTrue(!PartitionHorizon.enoughAhead(partitions, 50, 2, 251), "the horizon is short");
    assertTrue(!PartitionHorizon.enoughAhead(partitions, 150, 2, 0), "one lies wholly above");
    assertTrue(!PartitionHorizon.enoughAhead(List.of(), 0, 1, 0), "none at all");
  }

  @Test
  void anH2JournalHasNoPartitionsToLookAt() throws Exception {
    try (TestDatabase db = TestDatabase.h2()) {
      PartitionHorizon horizon = new PartitionHorizon(db.dataSource(), SETTINGS, HORIZON);
      assertEquals(0, horizon.check(Instant.parse("2026-11-28T12:00:00Z")));
      assertEquals(0, horizon.check(Instant.parse("2026-11-28T12:00:05Z")));
    }
  }
}
