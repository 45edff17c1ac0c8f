package dev.rota.cluster.journal;

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
import dev.rota.core.model.AgentState;
import java.sql.Connection;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.junit.jupiter.api.Test;

/**
 * Migration V13 on a PostgreSQL database with agents' events written before it (decision 124): the
 * journal becomes partitioned without copying a row, every agent recovers to the state it had, new
 * events are written on, and the journal's maintenance creates partitions above them.
 */
class JournalPartitionsMigrationTest {

  @Test
  void partitionsAJournalWithRowsAndEveryAgentRecoversAndWritesOn() throws Exception {
    try (TestDatabase db = TestDatabase.postgresAt("12")) {
      Config config =
          ConfigFactory.parseString("rota.partitions = 4\nrota.agent.snapshot-every = 5")
              .withFallback(SingleNodeCluster.config())
              .withFallback(db.pekkoConfig())
              .withFallback(ConfigFactory.load());
      List<String> ids = IntStream.range(0, 6).mapToObj(i -> "before-v13-" + i).toList();
      Map<String, AgentState> before = new HashMap<>();
      ActorTestKit old = start(config);
      try {
        Agents agents = new Agents(old.system());
        for (String id : ids) {
          agents.register(id, AgentConfigPatch.empty());
          agents.notify(id, "one");
          agents.notify(id, "two");
          var granted = agents.claim(id, "runner-1", 60);
          agents.complete(id, granted.lease());
          agents.notify(id, "unread");
        }
        for (String id : ids) {
          before.put(id, agents.state(id));
        }
      } finally {
        old.shutdownTestKit();
      }
      long rows = db.queryLong("select count(*) from event_journal");
      long highest = db.queryLong("select max(ordering) from event_journal");
      assertTrue(rows >= 6L * ids.size(), "rows written before V13: " + rows);

      assertEquals(1, db.migrateTo("13"));

      try (Connection c = db.dataSource().getConnection()) {
        assertTrue(JournalPartitions.partitioned(c));
        List<JournalPartitions.Partition> partitions = JournalPartitions.list(c);
        assertEquals("event_journal_p0", partitions.get(0).name());
        assertEquals(Long.MIN_VALUE, partitions.get(0).from());
        assertTrue(partitions.get(0).to() > highest);
        assertEquals(3, partitions.size(), "the first and two ahead: " + partitions);
      }
      assertEquals(rows, db.queryLong("select count(*) from event_journal_p0"));

      ActorTestKit upgraded = start(config);
      try {
        Agents agents = new Agents(upgraded.system());
        for (String id : ids) {
          assertEquals(before.get(id), agents.state(id), "state of " + id + " after V13");
          agents.notify(id, "after");
        }
        assertEquals(rows + ids.size(), db.queryLong("select count(*) from event_journal"));
        assertTrue(db.queryLong("select max(ordering) from event_journal") > highest);

        JournalRetention retention = NoSnapshots.retention(db.dataSource(), 4, 100_000, 100_000);
        JournalRetention.Run run = retention.run(Instant.now());
        assertEquals(0, run.partitionsDropped());
        try (Connection c = db.dataSource().getConnection()) {
          assertEquals(5, JournalPartitions.list(c).size(), "four ahead of the writes");
        }
      } finally {
        upgraded.shutdownTestKit();
      }
    }
  }

  private static ActorTestKit start(Config config) {
    ActorTestKit kit = ActorTestKit.create("JournalPartitionsMigrationTest", config);
    SingleNodeCluster.join(kit.system());
    AgentSharding.init(kit.system(), AgentSettings.from(config), AgentChangeListener.NONE);
    return kit;
  }
}
