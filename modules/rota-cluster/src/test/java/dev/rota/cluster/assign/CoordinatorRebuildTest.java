package dev.rota.cluster.assign;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.rota.cluster.RotaCluster;
import dev.rota.cluster.agent.AgentEntity;
import dev.rota.cluster.assign.WorkProtocol.Assigned;
import dev.rota.cluster.assign.WorkProtocol.NoWork;
import dev.rota.cluster.assign.WorkProtocol.RequestWork;
import dev.rota.cluster.assign.WorkProtocol.WorkReply;
import dev.rota.cluster.testing.Agents;
import dev.rota.cluster.testing.SingleNodeCluster;
import dev.rota.cluster.testing.TestDatabase;
import dev.rota.core.model.AgentConfigPatch;
import dev.rota.core.model.ClaimSpec;
import dev.rota.core.model.Ids;
import dev.rota.core.model.RunnerMode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.LogCapturingExtension;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.AskPattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A coordinator that starts on a new node knows its partition from {@code agent_schedule} alone:
 * the agents of the first node are not running on the second until someone claims them, so the only
 * way the rule can pick right is the rebuilt index.
 */
@ExtendWith(LogCapturingExtension.class)
class CoordinatorRebuildTest {
  private static final String CAP = "rebuild";
  private static TestDatabase database;

  @BeforeAll
  static void database() {
    database = TestDatabase.h2();
  }

  @AfterAll
  static void close() {
    database.close();
  }

  private static ActorTestKit node() {
    Config config =
        ConfigFactory.parseString("rota.partitions = 4\nrota.runners.enabled = false")
            .withFallback(SingleNodeCluster.config())
            .withFallback(database.pekkoConfig())
            .withFallback(ConfigFactory.load())
            .resolve();
    ActorTestKit kit = ActorTestKit.create("CoordinatorRebuildTest", config);
    SingleNodeCluster.join(kit.system());
    return kit;
  }

  @Test
  void rebuildsIndexFromReadModelAndKeepsTheRule() {
    ActorTestKit first = node();
    try {
      RotaCluster.start(first.system(), database.dataSource());
      Agents agents = new Agents(first.system());
      int[] unread = {1, 3, 2};
      for (int i = 0; i < unread.length; i++) {
        String id = "agent-" + i;
        agents.register(id, new AgentConfigPatch(null, List.of(CAP), null, null, null, null, null));
        for (int n = 0; n < unread[i]; n++) {
          agents.notify(id, "mention");
        }
      }
      first
          .createTestProbe()
          .awaitAssert(
              Duration.ofSeconds(30),
              () -> {
                assertEquals(
                    6L, database.queryLong("select coalesce(sum(unread), 0) from agent_schedule"));
                return null;
              });
    } finally {
      first.shutdownTestKit();
    }

    ActorTestKit second = node();
    try {
      RotaCluster rota = RotaCluster.start(second.system(), database.dataSource());
      List<String> order = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        AgentEntity.Granted granted =
            assertInstanceOf(Assigned.class, claim(second.system(), rota, "r" + i)).granted();
        order.add(Ids.agentOf(granted.lease().leaseId()).orElseThrow());
      }
      assertEquals(List.of("agent-1", "agent-2", "agent-0"), order);
      assertInstanceOf(NoWork.class, claim(second.system(), rota, "r9"));
    } finally {
      second.shutdownTestKit();
    }
  }

  private static WorkReply claim(ActorSystem<?> system, RotaCluster rota, String runnerId) {
    return AskPattern.<Dispatcher.Command, WorkReply>ask(
            rota.dispatcher(),
            r ->
                new RequestWork(
                    new ClaimSpec(
                        runnerId, RunnerMode.NOTIFICATION, Set.of(CAP), Duration.ZERO, 60),
                    null,
                    r),
            Duration.ofSeconds(30),
            system.scheduler())
        .toCompletableFuture()
        .join();
  }
}
