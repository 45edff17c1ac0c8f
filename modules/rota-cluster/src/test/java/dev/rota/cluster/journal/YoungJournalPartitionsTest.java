package dev.rota.cluster.journal;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.rota.cluster.agent.AgentChangeListener;
import dev.rota.cluster.agent.AgentSettings;
import dev.rota.cluster.agent.AgentSharding;
import dev.rota.cluster.testing.Agents;
import dev.rota.cluster.testing.SingleNodeCluster;
import dev.rota.cluster.testing.TestDatabase;
import dev.rota.core.model.AgentConfigPatch;
import java.sql.Connection;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.stream.IntStream;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
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
      JournalRetention retention = NoSnapshots.retention(db.dataSource(), 2, MIN, 50_000_000);
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
      JournalRetention retention = NoSnapshots.retention(db.dataSource(), 4, MIN, 50_000_000);
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

  @Test
  void writersThatFindNoPartitionCreateTwiceTheNewestAndLoseNoWrite() throws Exception {
    try (TestDatabase db = TestDatabase.postgres()) {
      Config config =
          ConfigFactory.parseString("rota.partitions = 4")
              .withFallback(SingleNodeCluster.config())
              .withFallback(db.pekkoConfig())
              .withFallback(ConfigFactory.load());
      // No maintenance runs here: the writes reach the end of V13's partitions on their own.
      db.execute("select setval('event_journal_ordering_seq', 299990)");
      ActorTestKit kit = ActorTestKit.create("YoungJournalPartitionsTest", config);
      try {
        SingleNodeCluster.join(kit.system());
        AgentSharding.init(kit.system(), AgentSettings.from(config), AgentChangeListener.NONE);
        Agents agents = new Agents(kit.system());
        List<String> ids = IntStream.range(0, 8).mapToObj(i -> "burst-" + i).toList();
        for (String id : ids) {
          agents.register(id, AgentConfigPatch.empty());
        }
        List<CompletableFuture<Void>> writes = new ArrayList<>();
        for (String id : ids) {
          writes.add(
              CompletableFuture.runAsync(
                  () -> IntStream.range(0, 5).forEach(n -> agents.notify(id, "n" + n))));
        }
        CompletableFuture.allOf(writes.toArray(CompletableFuture[]::new)).get(60, SECONDS);
        for (String id : ids) {
          assertEquals(5, agents.state(id).inbox().size(), "unread of " + id);
        }
      } finally {
        kit.shutdownTestKit();
      }
      try (Connection c = db.dataSource().getConnection()) {
        List<JournalPartitions.Partition> partitions = JournalPartitions.list(c);
        List<Long> sizes = partitions.stream().skip(1).map(p -> p.to() - p.from()).toList();
        // V13's two, then what the writers made: twice the newest's size. A writer that takes
        // the lock after another's rows moved the sequence into the new ones may add one more.
        assertEquals(List.of(MIN, MIN), sizes.subList(0, 2), "partitions: " + partitions);
        List<Long> made = sizes.subList(2, sizes.size());
        assertTrue(made.size() >= 2, "partitions: " + partitions);
        assertTrue(made.stream().allMatch(size -> size >= 2 * MIN), "partitions: " + partitions);
      }
      long above = db.queryLong("select count(*) from event_journal where ordering >= 300000");
      assertTrue(above > 0, "no write landed in a partition the writers created");
    }
  }
}
