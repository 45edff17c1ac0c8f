package dev.rota.cluster.readmodel;

import static org.junit.jupiter.api.Assertions.assertEquals;

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
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.LogCapturingExtension;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.projection.ProjectionBehavior;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Exactly once across a restart: the projections are stopped, agents go on, and the restarted
 * projections resume from the offsets committed with the rows, counting nothing twice. The
 * projections run as plain actors here (not the sharded daemon process) so the test can stop them.
 */
@ExtendWith(LogCapturingExtension.class)
class AgentScheduleProjectionRestartTest {
  private static final TestDatabase DB = TestDatabase.h2();
  private static final Config CONFIG =
      ConfigFactory.parseString(
              "rota.partitions = 2\n"
                  + "rota.projection.group-after-duration = 50ms\n"
                  + "rota.read-model.writer = projection")
          .withFallback(SingleNodeCluster.config())
          .withFallback(DB.pekkoConfig())
          .withFallback(ConfigFactory.load());
  private static final ActorTestKit TEST_KIT =
      ActorTestKit.create("AgentScheduleProjectionRestartTest", CONFIG);
  private static final AgentSettings SETTINGS = AgentSettings.from(CONFIG);

  private static Agents agents;
  private static ReadModel readModel;

  @BeforeAll
  static void start() {
    SingleNodeCluster.join(TEST_KIT.system());
    AgentSharding.init(TEST_KIT.system(), SETTINGS, AgentChangeListener.NONE);
    agents = new Agents(TEST_KIT.system());
    readModel = new ReadModel(DB.dataSource());
  }

  @AfterAll
  static void stop() {
    TEST_KIT.shutdownTestKit();
    DB.close();
  }

  @Test
  void resumesFromCommittedOffsetsWithoutCountingTwice() {
    List<String> ids = IntStream.range(0, 4).mapToObj(i -> "r-" + i).toList();
    List<ActorRef<ProjectionBehavior.Command>> projections = startProjections(1);
    ids.forEach(id -> agents.register(id, AgentConfigPatch.empty()));
    for (String id : ids) {
      agents.notify(id, "first");
      agents.notify(id, "second");
    }
    eventually(() -> assertEquals(8, counter(Counter.NOTIFICATIONS_ACCEPTED)));
    ids.forEach(id -> assertEquals(2, unread(id)));
    // The offset committed with the rows is the last event of each tag.
    for (int p = 0; p < SETTINGS.partitions(); p++) {
      assertEquals(lastEventOf(Partitions.tag(p)), storedOffset(Partitions.tag(p)));
    }

    stopProjections(projections);
    for (String id : ids) {
      agents.notify(id, "while-stopped");
    }
    var lease = agents.claim(ids.get(0), "runner-1", 60).lease();
    agents.complete(ids.get(0), lease);
    sleep(Duration.ofMillis(500));
    assertEquals(8, counter(Counter.NOTIFICATIONS_ACCEPTED), "nothing projected while stopped");

    startProjections(2);
    eventually(
        () -> {
          assertEquals(12, counter(Counter.NOTIFICATIONS_ACCEPTED));
          assertEquals(1, counter(Counter.ACTIVATIONS_COMPLETED));
          assertEquals(0, unread(ids.get(0)));
          ids.subList(1, ids.size()).forEach(id -> assertEquals(3, unread(id)));
        });
    sleep(Duration.ofMillis(500));
    assertEquals(12, counter(Counter.NOTIFICATIONS_ACCEPTED));
    assertEquals(1, counter(Counter.ACTIVATIONS_INBOX));
    assertEquals(1, counter(Counter.ACTIVATIONS_COMPLETED));
  }

  private static List<ActorRef<ProjectionBehavior.Command>> startProjections(int generation) {
    ProjectionSettings settings = ProjectionSettings.from(CONFIG);
    List<ActorRef<ProjectionBehavior.Command>> refs = new ArrayList<>();
    for (int p = 0; p < SETTINGS.partitions(); p++) {
      refs.add(
          TEST_KIT.spawn(
              ProjectionBehavior.create(
                  AgentScheduleProjection.create(
                      TEST_KIT.system(), DB.dataSource(), SETTINGS, settings, p)),
              "projection-" + p + "-" + generation));
    }
    return refs;
  }

  private static void stopProjections(List<ActorRef<ProjectionBehavior.Command>> refs) {
    TestProbe<Object> probe = TEST_KIT.createTestProbe();
    for (ActorRef<ProjectionBehavior.Command> ref : refs) {
      ref.tell(ProjectionBehavior.stopMessage());
      probe.expectTerminated(ref, Duration.ofSeconds(10));
    }
  }

  private static long counter(Counter counter) {
    return readModel.stats(Instant.now()).counter(counter);
  }

  private static int unread(String agentId) {
    return readModel.loadPartition(SETTINGS.partitionOf(agentId)).stream()
        .filter(r -> r.schedule().agentId().equals(agentId))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no row for " + agentId))
        .schedule()
        .unread();
  }

  private static Long lastEventOf(String tag) {
    return DB.queryLong("select max(event_id) from event_tag where tag = ?", tag);
  }

  private static Long storedOffset(String tag) {
    return DB.queryLong(
        "select cast(current_offset as bigint) from pekko_projection_offset_store"
            + " where projection_name = ? and projection_key = ?",
        AgentScheduleProjection.NAME,
        tag);
  }

  /** Gives a stopped (or caught-up) projection time to write what it must not: nothing to await. */
  private static void sleep(Duration d) {
    try {
      Thread.sleep(d.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
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
