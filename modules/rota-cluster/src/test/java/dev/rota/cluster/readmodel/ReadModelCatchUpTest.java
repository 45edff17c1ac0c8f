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
import dev.rota.core.model.Partitions;
import dev.rota.core.scheduling.AgentSchedule;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.serialization.Serialization;
import org.apache.pekko.serialization.SerializationExtension;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A database written before the journal wrote the read model (decision 97): the journal here writes
 * events only (no sink), as a node before decision 27 did, and the projection's offsets say how far
 * it had applied them. The catch-up applies the rest through the journal's writer, once.
 */
class ReadModelCatchUpTest {
  private static final int PARTITIONS = 4;
  private static TestDatabase db;
  private static ActorTestKit kit;
  private static AgentSettings settings;
  private static Agents agents;
  private static ReadModel readModel;

  @BeforeAll
  static void start() {
    db = TestDatabase.h2();
    Config config =
        ConfigFactory.parseString(
                "rota.partitions = " + PARTITIONS + "\nrota-journal.read-model-sink = \"\"")
            .withFallback(SingleNodeCluster.config())
            .withFallback(db.pekkoConfig())
            .withFallback(ConfigFactory.load());
    kit = ActorTestKit.create("ReadModelCatchUpTest", config);
    settings = AgentSettings.from(config);
    SingleNodeCluster.join(kit.system());
    AgentSharding.init(kit.system(), settings, AgentChangeListener.NONE);
    agents = new Agents(kit.system());
    readModel = new ReadModel(db.dataSource());
  }

  @AfterAll
  static void stop() {
    kit.shutdownTestKit();
    db.close();
  }

  @BeforeEach
  void empty() {
    db.clearReadModel();
    db.execute("delete from pekko_projection_offset_store");
  }

  private ReadModelCatchUp catchUp() {
    Serialization serialization = SerializationExtension.get(kit.system());
    return new ReadModelCatchUp(
        db.dataSource(),
        PARTITIONS,
        (payload, id, manifest) -> serialization.deserialize(payload, id, manifest).get());
  }

  private static void storeOffset(int partition, long ordering) {
    db.execute(
        "insert into pekko_projection_offset_store (projection_name, projection_key,"
            + " current_offset, manifest, mergeable, last_updated) values ('agent-schedule', '"
            + Partitions.tag(partition)
            + "', '"
            + ordering
            + "', 'SEQ', false, 0)");
  }

  @Test
  void appliesWhatTheProjectionHadNotAppliedAndThenNothing() throws Exception {
    String id = "catch-up-alice";
    agents.register(id, new AgentConfigPatch(null, List.of("code"), 2, null, null, 3, null));
    agents.notify(id, "one");
    var granted = agents.claim(id, "runner-1", Set.of("code"), 60);
    agents.complete(id, granted.lease());
    agents.notify(id, "two");
    assertTrue(rows(id).isEmpty(), "the journal here writes no read model");
    for (int p = 0; p < PARTITIONS; p++) {
      storeOffset(p, 0);
    }

    ReadModelCatchUp.Result result = catchUp().run();

    assertEquals(PARTITIONS, result.offsets());
    assertTrue(result.applied() >= 5, "its five events at least: " + result);
    AgentSchedule row = rows(id).orElseThrow();
    assertEquals(Set.of("code"), row.capabilities());
    assertEquals(1, row.unread());
    assertFalse(row.leased());
    assertNotNull(row.lastActivatedAt());
    long accepted = readModel.stats(Instant.now()).counter(Counter.NOTIFICATIONS_ACCEPTED);
    assertTrue(accepted >= 2, "its two notifications at least: " + accepted);
    // The offsets are gone: a second run does nothing, and counts nothing twice.
    assertEquals(new ReadModelCatchUp.Result(0, 0, 0), catchUp().run());
    assertEquals(accepted, readModel.stats(Instant.now()).counter(Counter.NOTIFICATIONS_ACCEPTED));
  }

  @Test
  void skipsWhatAPartitionsProjectionHadAppliedAndCountsNothingTwice() throws Exception {
    String early = "catch-up-early";
    String late = "catch-up-late";
    agents.register(early, AgentConfigPatch.empty());
    agents.register(late, AgentConfigPatch.empty());
    agents.notify(late, "one");
    long head = readModel.journalHead();
    agents.notify(late, "two");
    int latePartition = Partitions.of(late, PARTITIONS);
    for (int p = 0; p < PARTITIONS; p++) {
      storeOffset(p, p == latePartition ? head : 0);
    }

    ReadModelCatchUp.Result first = catchUp().run();

    if (Partitions.of(early, PARTITIONS) != latePartition) {
      assertTrue(rows(early).isPresent(), "an agent of a partition at offset 0 has its row");
    }
    // Only the event after the stored offset: as the projection would have gone on.
    assertTrue(rows(late).isEmpty(), "the registration was before the offset: no row to update");
    assertTrue(first.applied() >= 1);
    // Interrupted and run again from the same offsets: nothing counts twice.
    for (int run = 0; run < 2; run++) {
      for (int p = 0; p < PARTITIONS; p++) {
        storeOffset(p, p == latePartition ? 0 : head);
      }
      catchUp().run();
    }
    assertEquals(2, rows(late).orElseThrow().unread(), "each notification counted once");
  }

  private Optional<AgentSchedule> rows(String agentId) {
    return readModel.loadPartition(settings.partitionOf(agentId)).stream()
        .map(ScheduleRow::schedule)
        .filter(s -> s.agentId().equals(agentId))
        .findFirst();
  }
}
