package dev.rota.cluster.readmodel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.rota.cluster.agent.AgentChangeListener;
import dev.rota.cluster.agent.AgentEntity;
import dev.rota.cluster.agent.AgentSettings;
import dev.rota.cluster.agent.AgentSharding;
import dev.rota.cluster.testing.Agents;
import dev.rota.cluster.testing.SingleNodeCluster;
import dev.rota.cluster.testing.TestDatabase;
import dev.rota.core.model.ActivationKind;
import dev.rota.core.model.AgentConfigPatch;
import dev.rota.core.model.FailureAction;
import dev.rota.core.model.Partitions;
import dev.rota.core.scheduling.AgentSchedule;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.IntStream;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.LogCapturingExtension;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The projection end to end on one cluster node: agents driven through sharding persist to the JDBC
 * journal on H2, and the read model converges to what they did.
 */
@ExtendWith(LogCapturingExtension.class)
class AgentScheduleProjectionTest {
  private static final TestDatabase DB = TestDatabase.h2();
  private static final Config CONFIG =
      ConfigFactory.parseString(
              "rota.partitions = 4\nrota.projection.group-after-duration = 50ms\n"
                  + "rota.read-model.writer = projection")
          .withFallback(SingleNodeCluster.config())
          .withFallback(DB.pekkoConfig())
          .withFallback(ConfigFactory.load());
  private static final ActorTestKit TEST_KIT =
      ActorTestKit.create("AgentScheduleProjectionTest", CONFIG);
  private static final AgentSettings SETTINGS = AgentSettings.from(CONFIG);

  private static Agents agents;
  private static ReadModel readModel;

  @BeforeAll
  static void start() {
    SingleNodeCluster.join(TEST_KIT.system());
    AgentSharding.init(TEST_KIT.system(), SETTINGS, AgentChangeListener.NONE);
    AgentScheduleProjection.init(TEST_KIT.system(), DB.dataSource(), SETTINGS);
    agents = new Agents(TEST_KIT.system());
    readModel = new ReadModel(DB.dataSource());
  }

  @AfterAll
  static void stop() {
    TEST_KIT.shutdownTestKit();
    DB.close();
  }

  @Test
  void followsAnAgentThroughItsLife() {
    String id = "alice";
    agents.register(id, new AgentConfigPatch(null, List.of("web", "code"), 2, null, null, 3, null));
    eventually(() -> assertEquals(Set.of("code", "web"), schedule(id).capabilities()));

    Instant firstNotification = Instant.now();
    for (int i = 0; i < 3; i++) {
      agents.notify(id, "mention-" + i);
    }
    eventually(
        () -> {
          AgentSchedule s = schedule(id);
          assertEquals(3, s.unread());
          assertFalse(s.oldestUnreadAt().isBefore(firstNotification.minusSeconds(1)));
        });

    // Claim all three, complete.
    var granted = agents.claim(id, "runner-1", Set.of("code", "web"), 60);
    assertEquals(ActivationKind.INBOX, granted.lease().kind());
    eventually(
        () -> assertEquals(Optional.of(granted.lease().leaseId()), readModel.leaseOf("runner-1")));
    agents.complete(id, granted.lease());
    eventually(
        () -> {
          AgentSchedule s = schedule(id);
          assertFalse(s.leased());
          assertEquals(0, s.unread());
          assertNotNull(s.lastActivatedAt());
          assertEquals(1L, activationCount(id));
        });

    // One more notification, failed with retry until it dies (maxAttempts 3).
    agents.notify(id, "retry-me");
    for (int attempt = 1; attempt <= 3; attempt++) {
      // A runner per attempt: a retry avoids the runner that failed the attempt before.
      var lease = agents.claim(id, "runner-" + attempt, Set.of("code", "web"), 60).lease();
      agents.fail(id, lease, FailureAction.RETRY);
    }
    eventually(
        () -> {
          List<DeadLetterRow> dead = readModel.deadLetters(id, 10);
          assertEquals(1, dead.size());
          assertEquals(3, dead.get(0).attempts());
          assertEquals("retry-me", dead.get(0).type());
          assertEquals("{\"type\":\"retry-me\"}", dead.get(0).payload());
          assertEquals(0, schedule(id).unread());
        });

    // Redrive it: back to the inbox.
    String deadLetterId = readModel.deadLetters(id, 10).get(0).id();
    agents.ask(id, r -> new AgentEntity.Redrive(deadLetterId, r), AgentEntity.Done.class);
    eventually(
        () -> {
          assertEquals(List.of(), readModel.deadLetters(id, 10));
          assertEquals(1, schedule(id).unread());
        });

    agents.ask(id, r -> new AgentEntity.SetPaused(true, r), AgentEntity.AgentDetails.class);
    eventually(() -> assertTrue(schedule(id).paused()));
    agents.ask(id, r -> new AgentEntity.SetPaused(false, r), AgentEntity.AgentDetails.class);
    eventually(() -> assertFalse(schedule(id).paused()));

    // Cancel dead-letters at once; deregistering then removes the agent and its dead letters.
    var last = agents.claim(id, "runner-2", Set.of("code", "web"), 60).lease();
    agents.fail(id, last, FailureAction.CANCEL);
    eventually(() -> assertEquals(1, readModel.deadLetters(id, 10).size()));
    agents.ask(id, AgentEntity.Deregister::new, AgentEntity.Done.class);
    eventually(
        () -> {
          assertNull(activationCount(id));
          assertEquals(List.of(), readModel.deadLetters(id, 10));
        });

    ReadModelStats stats = readModel.stats(Instant.now());
    assertEquals(4, stats.counter(Counter.NOTIFICATIONS_ACCEPTED));
    assertEquals(5, stats.counter(Counter.ACTIVATIONS_INBOX));
    assertEquals(0, stats.counter(Counter.ACTIVATIONS_EXPLORATION));
    assertEquals(1, stats.counter(Counter.ACTIVATIONS_COMPLETED));
    assertEquals(4, stats.counter(Counter.ACTIVATIONS_FAILED));
    assertEquals(0, stats.counter(Counter.ACTIVATIONS_EXPIRED));
    assertEquals(2, stats.counter(Counter.NOTIFICATIONS_DEAD_LETTERED));
  }

  @Test
  void everyPartitionIsProjected() {
    List<String> ids = IntStream.range(0, 12).mapToObj(i -> "bot-" + i).toList();
    ids.forEach(id -> agents.register(id, AgentConfigPatch.empty()));

    eventually(
        () -> {
          for (int p = 0; p < SETTINGS.partitions(); p++) {
            int partition = p;
            List<String> expected =
                ids.stream()
                    .filter(id -> Partitions.of(id, SETTINGS.partitions()) == partition)
                    .sorted()
                    .toList();
            List<String> loaded =
                readModel.loadPartition(p).stream()
                    .map(r -> r.schedule().agentId())
                    .filter(ids::contains)
                    .toList();
            assertEquals(expected, loaded, "partition " + p);
          }
        });
  }

  private static AgentSchedule schedule(String agentId) {
    return readModel.loadPartition(SETTINGS.partitionOf(agentId)).stream()
        .filter(r -> r.schedule().agentId().equals(agentId))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no row for " + agentId))
        .schedule();
  }

  private static Long activationCount(String agentId) {
    return DB.queryLong("select activation_count from agent_schedule where agent_id = ?", agentId);
  }

  private static void eventually(Runnable assertion) {
    TEST_KIT
        .createTestProbe()
        .awaitAssert(
            Duration.ofSeconds(10),
            Duration.ofMillis(50),
            () -> {
              assertion.run();
              return null;
            });
  }
}
