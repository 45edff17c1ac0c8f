package dev.rota.cluster.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.core.model.Ids;
import java.util.Map;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.cluster.sharding.typed.HashCodeMessageExtractor;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

class ShardHomesTest {

  private static final ActorTestKit testKit = ActorTestKit.create();

  @AfterAll
  static void stop() {
    testKit.shutdownTestKit();
  }

  @Test
  void thereIsOneProbePerShardAndNoneIsAnAgentId() {
    Map<String, String> probes = ShardHomes.probeIds(1000);
    HashCodeMessageExtractor<AgentEntity.Command> extractor = new HashCodeMessageExtractor<>(1000);

    assertEquals(1000, probes.size());
    probes.forEach((shard, probe) -> assertEquals(shard, extractor.shardId(probe), probe));
    for (String probe : probes.values()) {
      assertTrue(ShardHomes.isProbe(probe), probe);
      assertFalse(Ids.isValidAgentId(probe), probe + " must not be a valid agent id");
    }
    assertFalse(ShardHomes.isProbe("agent-1"));
  }

  @Test
  void aProbeStopsOnTheMessageThatLocatedIt() {
    ActorRef<AgentEntity.Command> probe = testKit.spawn(ShardHomes.probe());
    TestProbe<Object> watcher = testKit.createTestProbe();

    probe.tell(new AgentEntity.Get(testKit.system().ignoreRef()));

    watcher.expectTerminated(probe);
  }
}
