package dev.rota.cluster.readmodel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
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
import dev.rota.core.model.FailureAction;
import dev.rota.core.scheduling.AgentSchedule;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.IntStream;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The read model written by Rota's journal in the transaction of the events (decisions 27 and 94):
 * every row and count is there the moment the agent has answered — read with no waiting — on H2 and
 * on PostgreSQL.
 */
class ReadModelFromJournalTest {

  @Nested
  class OnH2 extends Contract {
    OnH2() {
      super(TestDatabase.h2());
    }
  }

  @Nested
  class OnPostgres extends Contract {
    OnPostgres() {
      super(TestDatabase.postgres());
    }
  }

  @TestInstance(TestInstance.Lifecycle.PER_CLASS)
  abstract static class Contract {
    private final TestDatabase db;
    private ActorTestKit kit;
    private AgentSettings settings;
    private Agents agents;
    private ReadModel readModel;

    Contract(TestDatabase db) {
      this.db = db;
    }

    @BeforeAll
    void start() {
      Config config =
          ConfigFactory.parseString("rota.partitions = 4")
              .withFallback(SingleNodeCluster.config())
              .withFallback(db.pekkoConfig())
              .withFallback(ConfigFactory.load());
      assertTrue(JournalSink.writesReadModelOf(config), "the default is the journal");
      kit = ActorTestKit.create("ReadModelFromJournalTest", config);
      settings = AgentSettings.from(config);
      SingleNodeCluster.join(kit.system());
      AgentSharding.init(kit.system(), settings, AgentChangeListener.NONE);
      agents = new Agents(kit.system());
      readModel = new ReadModel(db.dataSource());
    }

    @AfterAll
    void stop() {
      kit.shutdownTestKit();
      db.close();
    }

    @Test
    void everyAnsweredChangeIsInTheReadModelAtOnce() {
      String id = "journal-alice";
      agents.register(id, new AgentConfigPatch(null, List.of("code"), 2, null, null, 1, null));
      assertEquals(Set.of("code"), schedule(id).capabilities());

      agents.notify(id, "one");
      agents.notify(id, "two");
      assertEquals(2, schedule(id).unread());

      var granted = agents.claim(id, "runner-1", Set.of("code"), 60);
      assertEquals(Optional.of(granted.lease().leaseId()), readModel.leaseOf("runner-1"));
      assertTrue(schedule(id).leased());
      agents.complete(id, granted.lease());
      AgentSchedule done = schedule(id);
      assertFalse(done.leased());
      assertEquals(0, done.unread());
      assertNotNull(done.lastActivatedAt());

      agents.notify(id, "dies");
      var lease = agents.claim(id, "runner-1", Set.of("code"), 60).lease();
      agents.fail(id, lease, FailureAction.RETRY); // maxAttempts 1: dead at once
      assertEquals(1, readModel.deadLetters(id, 10).size());
      assertEquals(0, schedule(id).unread());
      // Nothing reads agents' events by tag (decision 98): each is its journal row alone.
      assertTrue(
          db.queryLong("select count(*) from event_journal where persistence_id = ?", "Agent|" + id)
              >= 8);
      assertEquals(
          0L,
          db.queryLong(
              "select count(*) from event_tag t join event_journal j on j.ordering = t.event_id"
                  + " where j.persistence_id = ?",
              "Agent|" + id));
    }

    @Test
    void countersCountEachEventOnceUnderConcurrentWriters() {
      List<String> ids = IntStream.range(0, 24).mapToObj(i -> "journal-c" + i).toList();
      long before = counter(Counter.NOTIFICATIONS_ACCEPTED);
      ids.parallelStream().forEach(id -> agents.register(id, AgentConfigPatch.empty()));
      ids.parallelStream()
          .forEach(
              id -> {
                for (int i = 0; i < 5; i++) {
                  agents.notify(id, "n" + i);
                }
              });
      assertEquals(before + 5L * ids.size(), counter(Counter.NOTIFICATIONS_ACCEPTED));
      ids.forEach(id -> assertEquals(5, schedule(id).unread()));
    }

    private long counter(Counter counter) {
      return readModel.stats(Instant.now()).counter(counter);
    }

    private AgentSchedule schedule(String agentId) {
      return readModel.loadPartition(settings.partitionOf(agentId)).stream()
          .filter(r -> r.schedule().agentId().equals(agentId))
          .findFirst()
          .orElseThrow(() -> new AssertionError("no row for " + agentId))
          .schedule();
    }
  }
}
