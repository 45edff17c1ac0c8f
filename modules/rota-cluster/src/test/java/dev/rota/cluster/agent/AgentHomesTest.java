package dev.rota.cluster.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.apache.pekko.actor.Address;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.cluster.sharding.typed.HashCodeMessageExtractor;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

class AgentHomesTest {

  private static final ActorTestKit testKit = ActorTestKit.create();

  private static final Address NODE_1 = new Address("pekko", "rota", "10.0.0.1", 25520);
  private static final Address NODE_2 = new Address("pekko", "rota", "10.0.0.2", 25520);

  @AfterAll
  static void stop() {
    testKit.shutdownTestKit();
  }

  @Test
  void anAgentWhoseShardLivedOnAnUnreachableNodeIsNamedAndNoOtherIs() {
    AgentHomes homes = AgentHomes.get(testKit.system());
    HashCodeMessageExtractor<AgentEntity.Command> extractor =
        new HashCodeMessageExtractor<>(
            testKit.system().settings().config().getInt("pekko.cluster.sharding.number-of-shards"));
    String onNode1 = "agent-a";
    String onNode2 = "agent-b";
    homes.learned(
        Map.of(
            NODE_1,
            Set.of(extractor.shardId(onNode1)),
            NODE_2,
            Set.of(extractor.shardId(onNode2))));

    assertEquals(Optional.of(NODE_1), homes.homeAmong(onNode1, Set.of(NODE_1)));
    assertEquals(Optional.empty(), homes.homeAmong(onNode2, Set.of(NODE_1)));
    assertEquals(Optional.empty(), homes.homeAmong("agent-never-located", Set.of(NODE_1, NODE_2)));
    // A system that is no cluster member (this test kit's) sees nothing unreachable.
    assertTrue(homes.unreachableHome(onNode1).isEmpty());
  }

  @Test
  void aRoundThatMissesANodeKeepsWhatWasKnownAndAMovedShardHasItsNewHome() {
    AgentHomes homes = AgentHomes.get(testKit.system());
    HashCodeMessageExtractor<AgentEntity.Command> extractor =
        new HashCodeMessageExtractor<>(
            testKit.system().settings().config().getInt("pekko.cluster.sharding.number-of-shards"));
    String moving = "agent-moving";
    String staying = "agent-staying";
    homes.learned(
        Map.of(
            NODE_1, Set.of(extractor.shardId(moving)), NODE_2, Set.of(extractor.shardId(staying))));

    // Node 1 is gone from the next round (it did not answer): its shard's home stays known.
    homes.learned(Map.of(NODE_2, Set.of(extractor.shardId(staying))));
    assertEquals(Optional.of(NODE_1), homes.homeAmong(moving, Set.of(NODE_1)));

    // The shard moved to node 2: the next round says so.
    homes.learned(Map.of(NODE_2, Set.of(extractor.shardId(staying), extractor.shardId(moving))));
    assertEquals(Optional.empty(), homes.homeAmong(moving, Set.of(NODE_1)));
    assertEquals(Optional.of(NODE_2), homes.homeAmong(moving, Set.of(NODE_2)));
  }

  @Test
  void aRequestWaitingForAnAgentWhoseNodeBecomesUnreachableEndsThen() {
    AgentHomes homes = AgentHomes.get(testKit.system());
    HashCodeMessageExtractor<AgentEntity.Command> extractor =
        new HashCodeMessageExtractor<>(
            testKit.system().settings().config().getInt("pekko.cluster.sharding.number-of-shards"));
    String onNode1 = "agent-waiting-1";
    String onNode2 = "agent-waiting-2";
    homes.learned(
        Map.of(
            NODE_1,
            Set.of(extractor.shardId(onNode1)),
            NODE_2,
            Set.of(extractor.shardId(onNode2))));
    CompletableFuture<String> toNode1 = new CompletableFuture<>();
    CompletableFuture<String> toNode2 = new CompletableFuture<>();
    CompletableFuture<String> answered = new CompletableFuture<>();
    CompletableFuture<String> waiting1 = homes.watch(onNode1, toNode1).toCompletableFuture();
    CompletableFuture<String> waiting2 = homes.watch(onNode2, toNode2).toCompletableFuture();
    CompletableFuture<String> done = homes.watch(onNode1, answered).toCompletableFuture();
    answered.complete("answer");

    homes.unreachable(NODE_1);

    ExecutionException failure = assertThrows(ExecutionException.class, waiting1::get);
    AgentHomes.HomeUnreachable gone =
        assertInstanceOf(AgentHomes.HomeUnreachable.class, failure.getCause());
    assertEquals(NODE_1, gone.home());
    assertFalse(waiting2.isDone(), "a request for another node's agent still waits");
    assertEquals("answer", done.getNow(null), "an answered request keeps its answer");
    toNode2.complete("later");
    assertEquals("later", waiting2.getNow(null));
  }
}
