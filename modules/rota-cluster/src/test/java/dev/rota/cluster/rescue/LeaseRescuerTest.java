package dev.rota.cluster.rescue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.rota.cluster.agent.AgentChangeListener;
import dev.rota.cluster.agent.AgentSettings;
import dev.rota.cluster.agent.AgentSharding;
import dev.rota.cluster.readmodel.Counter;
import dev.rota.cluster.readmodel.ReadModel;
import dev.rota.cluster.testing.Agents;
import dev.rota.cluster.testing.SingleNodeCluster;
import dev.rota.cluster.testing.TestDatabase;
import dev.rota.core.model.AgentConfigPatch;
import dev.rota.core.model.Notification;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.LogCapturingExtension;
import org.apache.pekko.actor.testkit.typed.javadsl.LoggingTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The rescuer on a one-node cluster whose journal writes the read model. Agents' own expiry timers
 * are pushed an hour out ({@code rota.agent.expiry-grace}), so only the rescuer can expire a lease.
 */
@ExtendWith(LogCapturingExtension.class)
class LeaseRescuerTest {
  private static final TestDatabase DB = TestDatabase.h2();
  private static final Config CONFIG =
      ConfigFactory.parseString(
              String.join(
                  "\n",
                  "rota.partitions = 2",
                  "rota.agent.expiry-grace = 1h",
                  "rota.rescue.interval = 200ms",
                  "rota.rescue.grace = 0s"))
          .withFallback(SingleNodeCluster.config())
          .withFallback(DB.pekkoConfig())
          .withFallback(ConfigFactory.load());
  private static final ActorTestKit TEST_KIT = ActorTestKit.create("LeaseRescuerTest", CONFIG);
  private static final AgentSettings SETTINGS = AgentSettings.from(CONFIG);

  private static Agents agents;
  private static ReadModel readModel;
  private static ActorRef<LeaseRescuer.Command> rescuer;

  @BeforeAll
  static void start() {
    SingleNodeCluster.join(TEST_KIT.system());
    AgentSharding.init(TEST_KIT.system(), SETTINGS, AgentChangeListener.NONE);
    readModel = new ReadModel(DB.dataSource());
    rescuer = LeaseRescuer.init(TEST_KIT.system(), readModel);
    agents = new Agents(TEST_KIT.system());
  }

  @AfterAll
  static void stop() {
    TEST_KIT.shutdownTestKit();
    DB.close();
  }

  @Test
  void expiresALeaseItsAgentLeftBehind() {
    long before = stats().rescued();
    agents.register("carol", AgentConfigPatch.empty());
    agents.notify("carol", "mention");

    LoggingTestKit.info("Rescued the expired lease of agent carol")
        .withLoggerName(LeaseRescuer.class.getName())
        .expect(
            TEST_KIT.system(),
            () -> {
              String leaseId = agents.claim("carol", "runner-1", 1).lease().leaseId();
              eventually(() -> assertEquals(Optional.of(leaseId), readModel.leaseOf("runner-1")));
              eventually(() -> assertEquals(before + 1, stats().rescued()));
              return null;
            });

    eventually(
        () -> {
          assertEquals(Optional.empty(), readModel.leaseOf("runner-1"));
          assertEquals(1, readModel.stats(Instant.now()).counter(Counter.ACTIVATIONS_EXPIRED));
        });
    List<Notification> inbox = agents.state("carol").inbox();
    assertEquals(1, inbox.size());
    assertEquals(1, inbox.get(0).attempts());
    assertFalse(agents.state("carol").hasLease());
  }

  @Test
  void rebuildsARowASkippedEventLeftWrongSoItsLeaseIsSeenAgain() {
    agents.register("erin", AgentConfigPatch.empty());
    agents.notify("erin", "mention");
    String leaseId = agents.claim("erin", "runner-3", 60).lease().leaseId();
    eventually(() -> assertEquals(Optional.of(leaseId), readModel.leaseOf("runner-3")));
    // What a skipped grant leaves: a row without the lease, marked for a rebuild.
    DB.execute(
        "update agent_schedule set lease_id = null, lease_runner_id = null, lease_kind = null,"
            + " lease_expires_at = null, rebuild = true where agent_id = 'erin'");
    assertEquals(Optional.empty(), readModel.leaseOf("runner-3"));

    eventually(() -> assertEquals(List.of(), readModel.rowsToRebuild(10)));

    assertEquals(Optional.of(leaseId), readModel.leaseOf("runner-3"));
    // The rescuer's own query sees the lease again once it is past its expiry.
    assertTrue(
        readModel.expiredLeases(Instant.now().plusSeconds(120), 100).stream()
            .anyMatch(l -> l.leaseId().equals(leaseId)));
    assertTrue(agents.state("erin").hasLease());
  }

  @Test
  void leavesLiveLeasesAlone() {
    long before = stats().rescued();
    agents.register("dave", AgentConfigPatch.empty());
    String leaseId = agents.claim("dave", "runner-2", 60).lease().leaseId();
    eventually(() -> assertEquals(Optional.of(leaseId), readModel.leaseOf("runner-2")));

    // Several rescue rounds.
    TEST_KIT.createTestProbe().expectNoMessage(Duration.ofSeconds(1));

    assertEquals(before, stats().rescued());
    assertTrue(agents.state("dave").hasLease());
    assertEquals(Optional.of(leaseId), readModel.leaseOf("runner-2"));
  }

  private static LeaseRescuer.Stats stats() {
    TestProbe<LeaseRescuer.Stats> probe = TEST_KIT.createTestProbe();
    rescuer.tell(new LeaseRescuer.GetStats(probe.ref()));
    return probe.receiveMessage(Duration.ofSeconds(5));
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
