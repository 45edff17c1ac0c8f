package dev.rota.cluster.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.rota.cluster.testing.Agents;
import dev.rota.cluster.testing.SingleNodeCluster;
import dev.rota.cluster.testing.TestDatabase;
import dev.rota.core.model.AgentConfigPatch;
import dev.rota.core.model.CallRequest;
import dev.rota.core.model.Notification;
import dev.rota.core.model.Replies;
import dev.rota.core.model.Send;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.LogCapturingExtension;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.cluster.MemberStatus;
import org.apache.pekko.cluster.typed.Cluster;
import org.apache.pekko.cluster.typed.Join;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Calls between agents of two nodes sharing one journal (H2), sharded by the production {@code
 * AgentSharding.init}: each call reaches its callee and each reply its caller, wherever sharding
 * put them. With several pairs, most callers and callees live on different nodes.
 */
@ExtendWith(LogCapturingExtension.class)
class CallsAcrossNodesTest {
  private static final TestDatabase DB = TestDatabase.h2();
  private static final int PAIRS = 6;

  private static ActorTestKit first;
  private static ActorTestKit second;

  private static Config config() {
    return ConfigFactory.parseString("rota.partitions = 4")
        .withFallback(SingleNodeCluster.config())
        .withFallback(DB.pekkoConfig())
        .withFallback(ConfigFactory.load());
  }

  @BeforeAll
  static void start() {
    first = ActorTestKit.create("CallsAcrossNodesTest", config());
    second = ActorTestKit.create("CallsAcrossNodesTest", config());
    var address = Cluster.get(first.system()).selfMember().address();
    Cluster.get(first.system()).manager().tell(Join.create(address));
    Cluster.get(second.system()).manager().tell(Join.create(address));
    for (ActorTestKit kit : List.of(first, second)) {
      TestProbe<Object> probe = kit.createTestProbe();
      probe.awaitAssert(
          Duration.ofSeconds(30),
          () -> {
            int up = 0;
            for (var m : Cluster.get(kit.system()).state().getMembers()) {
              if (m.status() == MemberStatus.up()) {
                up++;
              }
            }
            assertEquals(2, up);
            return null;
          });
      AgentSharding.init(
          kit.system(),
          AgentSettings.from(kit.system().settings().config()),
          AgentChangeListener.NONE);
    }
  }

  @AfterAll
  static void stop() {
    second.shutdownTestKit();
    first.shutdownTestKit();
    DB.close();
  }

  @Test
  void everyCallIsAnsweredToItsCallerWhicheverNodeHostsIt() {
    Agents viaFirst = new Agents(first.system());
    Agents viaSecond = new Agents(second.system());
    TestProbe<Object> probe = first.createTestProbe();
    for (int i = 0; i < PAIRS; i++) {
      for (String key : List.of("calls/caller" + i, "calls/callee" + i)) {
        // The first message to a shard waits for its allocation: on a loaded machine, a while.
        probe.awaitAssert(
            Duration.ofSeconds(60), () -> viaFirst.register(key, AgentConfigPatch.empty()));
      }
    }
    for (int i = 0; i < PAIRS; i++) {
      String caller = "calls/caller" + i;
      viaFirst.notify(caller, "start");
      var turn = viaFirst.claim(caller, "runner-" + i, 60);
      Send call =
          new Send(
              "callee" + i,
              "question",
              JsonNodeFactory.instance.objectNode().put("i", i),
              null,
              null,
              new CallRequest(600, null));
      viaFirst.ask(
          caller,
          r ->
              new AgentEntity.Complete(
                  turn.lease().leaseId(), turn.lease().runnerId(), null, List.of(call), r),
          AgentEntity.Done.class);
    }
    for (int i = 0; i < PAIRS; i++) {
      String callee = "calls/callee" + i;
      probe.awaitAssert(
          Duration.ofSeconds(20),
          () -> {
            assertEquals(1, viaSecond.get(callee).agent().unread());
            return null;
          });
      var served = viaSecond.claim(callee, "runner-e" + i, 60);
      Notification carried = served.notifications().get(0);
      assertEquals("caller" + i, carried.call().from().agentId());
      assertEquals("calls", carried.call().from().tenant());
      int n = i;
      viaSecond.ask(
          callee,
          r ->
              new AgentEntity.Complete(
                  served.lease().leaseId(),
                  served.lease().runnerId(),
                  JsonNodeFactory.instance.objectNode().put("answer", n * 10),
                  List.of(),
                  r),
          AgentEntity.Done.class);
    }
    Set<String> callIds = new HashSet<>();
    for (int i = 0; i < PAIRS; i++) {
      String caller = "calls/caller" + i;
      probe.awaitAssert(
          Duration.ofSeconds(20),
          () -> {
            assertEquals(1, viaFirst.get(caller).agent().unread());
            return null;
          });
      JsonNode reply = viaSecond.claim(caller, "runner-r" + i, 60).notifications().get(0).payload();
      assertEquals(Replies.ANSWERED, reply.get("status").asText());
      assertEquals(i * 10, reply.get("result").get("answer").asInt());
      assertEquals("callee" + i, reply.get("from").get("agentId").asText());
      assertTrue(callIds.add(reply.get("callId").asText()), "one reply per call");
    }
  }
}
