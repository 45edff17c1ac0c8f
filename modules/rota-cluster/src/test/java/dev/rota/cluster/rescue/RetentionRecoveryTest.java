package dev.rota.cluster.rescue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.rota.cluster.agent.AgentChangeListener;
import dev.rota.cluster.agent.AgentSettings;
import dev.rota.cluster.agent.AgentSharding;
import dev.rota.cluster.journal.JournalRetention;
import dev.rota.cluster.testing.Agents;
import dev.rota.cluster.testing.SingleNodeCluster;
import dev.rota.cluster.testing.TestDatabase;
import dev.rota.core.model.AgentConfigPatch;
import dev.rota.core.model.AgentState;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.junit.jupiter.api.Test;

/**
 * Retention removes old events under idle and busy agents, and every agent recovers to the state it
 * had (decision 124): on PostgreSQL whole partitions are dropped after the agents that still needed
 * their events snapshotted; on H2 only events a snapshot covers are deleted. Time is the runs' own
 * clock, so no test waits for the retention to pass.
 */
class RetentionRecoveryTest {
  private static final Duration RETENTION = Duration.ofDays(3);
  private static final String OTHER = "rota-test-entity";
  private static final String CALL = "Call|default~retention-test";

  @Test
  void dropsPartitionsUnderIdleAndBusyAgentsAndRecoversEveryOne() throws Exception {
    try (TestDatabase db = TestDatabase.postgres()) {
      // Orderings start above the migration's first partitions, which are dropped too, empty.
      db.execute("select setval('event_journal_ordering_seq', 299999)");
      Outcome outcome = exercise(db);
      assertTrue(outcome.last().partitionsDropped() >= 2, "dropped " + outcome.last());
      long removedThrough = outcome.last().removedThrough();
      assertTrue(removedThrough >= outcome.cutoff() - 100, "partitions up to the cutoff went");
      assertEquals(
          0L,
          db.queryLong("select count(*) from event_journal where ordering <= ?", removedThrough),
          "no event of a dropped partition is left");
      assertTrue(outcome.last().snapshotsAsked() > 0, "agents were asked to snapshot");
      // The entity that cannot be asked had its events copied forward, not lost.
      assertEquals(
          3L,
          db.queryLong(
              "select count(*) from event_journal where persistence_id = ? and writer = ?",
              OTHER,
              "rota-retention"));
      // A call long over (its deadline and its answer's retention passed) is not copied.
      assertEquals(1, outcome.last().entitiesForgotten());
      assertEquals(
          0L, db.queryLong("select count(*) from event_journal where persistence_id = ?", CALL));
      assertEquals(removedThrough, db.queryLong("select removed_through from journal_retention"));
    }
  }

  @Test
  void deletesCoveredRowsOnH2UnderIdleAndBusyAgentsAndRecoversEveryOne() throws Exception {
    try (TestDatabase db = TestDatabase.h2()) {
      Outcome outcome = exercise(db);
      assertTrue(outcome.last().rowsRemoved() > 0, "removed " + outcome.last());
      // What idle agents have left at or below the cutoff is what no snapshot covers (a busy
      // agent may have snapshotted again after the run).
      assertEquals(
          0L,
          db.queryLong(
              "select count(*) from event_journal j where j.ordering <= ? and j.sequence_number"
                  + " <= coalesce((select max(s.sequence_number) from snapshot s"
                  + " where s.persistence_id = j.persistence_id), 0)"
                  + " and j.persistence_id like 'Agent|idle-%'",
              outcome.cutoff()));
      assertTrue(
          db.queryLong(
                  "select count(*) from event_journal where ordering <= ?"
                      + " and persistence_id like 'Agent|idle-%'",
                  outcome.cutoff())
              > 0,
          "idle agents' events past their snapshot stay");
      assertEquals(outcome.cutoff(), db.queryLong("select removed_through from journal_retention"));
    }
  }

  private record Outcome(JournalRetention.Run last, long cutoff) {}

  /**
   * Twenty agents write events; a run marks the journal; half the agents stay idle and half keep
   * working while a run a retention later removes what the mark covers; then a new node recovers
   * each agent from the journal and its state must equal the one the agent had.
   */
  private static Outcome exercise(TestDatabase db) throws Exception {
    Config config =
        ConfigFactory.parseString(
                "rota.partitions = 4\nrota.agent.snapshot-every = 4\nrota.calls.retention = 1m")
            .withFallback(SingleNodeCluster.config())
            .withFallback(db.pekkoConfig())
            .withFallback(ConfigFactory.load());
    JournalRetention.Settings settings =
        new JournalRetention.Settings(RETENTION, 3, 100, 100, Duration.ofSeconds(20), 8, 50);
    List<String> idle = IntStream.range(0, 10).mapToObj(i -> "idle-" + i).toList();
    List<String> busy = IntStream.range(0, 10).mapToObj(i -> "busy-" + i).toList();
    Instant t0 = Instant.parse("2026-01-01T00:00:00Z");

    ActorTestKit kit = start(config);
    Agents agents = new Agents(kit.system());
    JournalRetention retention =
        new JournalRetention(db.dataSource(), settings, new AgentSnapshots(kit.system()));
    retention.run(t0);
    // An entity that cannot be asked to snapshot, with three events and no snapshot, and a call
    // with two.
    insertEvents(db, OTHER, 3);
    insertEvents(db, CALL, 2);
    for (int i = 0; i < idle.size(); i++) {
      // Some end on a snapshot (four events), the others three events past one.
      work(agents, idle.get(i), i % 2 == 0 ? 1 : 0);
      work(agents, busy.get(i), 1);
    }
    retention.run(t0.plusSeconds(60));
    long cutoff = db.queryLong("select max(ordering) from journal_mark");

    AtomicBoolean stop = new AtomicBoolean();
    AtomicInteger turns = new AtomicInteger();
    CompletableFuture<Void> load =
        CompletableFuture.runAsync(
            () -> {
              while (!stop.get()) {
                busy.forEach(id -> turn(agents, id));
                turns.incrementAndGet();
              }
            });
    JournalRetention.Run last = retention.run(t0.plus(RETENTION).plusSeconds(120));
    stop.set(true);
    load.get();
    assertTrue(turns.get() > 0, "the busy agents worked during the run");

    Map<String, AgentState> before = new HashMap<>();
    for (String id : concat(idle, busy)) {
      before.put(id, agents.state(id));
    }
    kit.shutdownTestKit();

    ActorTestKit recovered = start(config);
    try {
      Agents again = new Agents(recovered.system());
      for (String id : concat(idle, busy)) {
        assertEquals(before.get(id), again.state(id), "state of " + id + " after recovery");
      }
    } finally {
      recovered.shutdownTestKit();
    }
    return new Outcome(last, cutoff);
  }

  private static void insertEvents(TestDatabase db, String persistenceId, int count) {
    String payload = db.dialect() == TestDatabase.Dialect.H2 ? "X'00'" : "'\\x00'::bytea";
    for (int seq = 1; seq <= count; seq++) {
      db.execute(
          "insert into event_journal (persistence_id, sequence_number, deleted, writer,"
              + " write_timestamp, adapter_manifest, event_ser_id, event_ser_manifest,"
              + " event_payload) values ('"
              + persistenceId
              + "', "
              + seq
              + ", false, 'w', 0, '', 1, 'm', "
              + payload
              + ")");
    }
  }

  private static ActorTestKit start(Config config) {
    ActorTestKit kit = ActorTestKit.create("RetentionRecoveryTest", config);
    SingleNodeCluster.join(kit.system());
    AgentSharding.init(kit.system(), AgentSettings.from(config), AgentChangeListener.NONE);
    return kit;
  }

  /** Registers the agent, then {@code turns} turns of two notifications each. */
  private static void work(Agents agents, String id, int turns) {
    agents.register(id, AgentConfigPatch.empty());
    agents.notify(id, "first");
    agents.notify(id, "second");
    agents.notify(id, "third");
    for (int i = 0; i < turns; i++) {
      turn(agents, id);
    }
  }

  private static void turn(Agents agents, String id) {
    agents.notify(id, "more");
    var granted = agents.claim(id, "runner-" + id, 60);
    agents.complete(id, granted.lease());
  }

  private static List<String> concat(List<String> a, List<String> b) {
    return java.util.stream.Stream.concat(a.stream(), b.stream()).toList();
  }
}
