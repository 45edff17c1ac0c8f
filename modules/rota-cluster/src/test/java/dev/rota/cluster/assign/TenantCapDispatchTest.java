package dev.rota.cluster.assign;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.cluster.RotaCluster;
import dev.rota.cluster.agent.AgentEntity;
import dev.rota.cluster.assign.WorkProtocol.Assigned;
import dev.rota.cluster.assign.WorkProtocol.NoWork;
import dev.rota.cluster.assign.WorkProtocol.RequestWork;
import dev.rota.cluster.assign.WorkProtocol.WorkReply;
import dev.rota.cluster.testing.ClusterTestConfig;
import dev.rota.core.model.AgentConfigPatch;
import dev.rota.core.model.ClaimSpec;
import dev.rota.core.model.Ids;
import dev.rota.core.model.RunnerMode;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.LogCapturingExtension;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.javadsl.AskPattern;
import org.apache.pekko.cluster.sharding.typed.javadsl.ClusterSharding;
import org.apache.pekko.cluster.typed.Cluster;
import org.apache.pekko.cluster.typed.Join;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The dispatcher and a tenant at its cap, on one node with every part started by {@code
 * RotaCluster}: a claim the capped tenant's agent denies is served another tenant's agent in the
 * same request, a claim with nothing else gets none, and the tenant's agents are served again once
 * a lease of it ends.
 */
@ExtendWith(LogCapturingExtension.class)
class TenantCapDispatchTest {
  private static final Duration ASK = Duration.ofSeconds(10);
  private static final String CAP = "capped-dispatch";
  private static ActorTestKit testKit;
  private static RotaCluster rota;
  private static ClusterSharding sharding;

  @BeforeAll
  static void startNode() {
    testKit =
        ActorTestKit.create(
            "TenantCapDispatchTest",
            ClusterTestConfig.inMemory(
                "rota.partitions = 4\n"
                    + "rota.coordinator.settle = 500ms\n"
                    + "rota.tenants { acme { max-concurrent = 1 } }"));
    Cluster cluster = Cluster.get(testKit.system());
    cluster.manager().tell(Join.create(cluster.selfMember().address()));
    rota = RotaCluster.start(testKit.system(), PartitionLoader.EMPTY);
    sharding = ClusterSharding.get(testKit.system());
  }

  @AfterAll
  static void stopNode() {
    testKit.shutdownTestKit();
  }

  private AgentEntity.Reply ask(
      String key,
      org.apache.pekko.japi.function.Function<
              org.apache.pekko.actor.typed.ActorRef<AgentEntity.Reply>, AgentEntity.Command>
          message) {
    return sharding
        .entityRefFor(AgentEntity.ENTITY_TYPE_KEY, key)
        .ask(message, ASK)
        .toCompletableFuture()
        .join();
  }

  private void registerWithUnread(String key, int unread) {
    assertInstanceOf(
        AgentEntity.AgentDetails.class,
        ask(
            key,
            r ->
                new AgentEntity.Register(
                    new AgentConfigPatch(null, List.of(CAP), null, null, null, null, null), r)));
    for (int i = 0; i < unread; i++) {
      assertInstanceOf(
          AgentEntity.Accepted.class,
          ask(key, r -> new AgentEntity.Notify("mention", null, null, r)));
    }
  }

  private WorkReply claim(String runnerId, Duration wait) {
    return AskPattern.<Dispatcher.Command, WorkReply>ask(
            rota.dispatcher(),
            r ->
                new RequestWork(
                    new ClaimSpec(runnerId, RunnerMode.NOTIFICATION, Set.of(CAP), wait, 60),
                    null,
                    r),
            wait.plus(ASK),
            testKit.system().scheduler())
        .toCompletableFuture()
        .join();
  }

  private static String agentOf(WorkReply reply) {
    AgentEntity.Granted g = assertInstanceOf(Assigned.class, reply, reply.toString()).granted();
    return Ids.agentOf(g.lease().leaseId()).orElseThrow();
  }

  @Test
  void aTenantAtItsCapIsPassedOverForAnotherTenantAndServedWhenALeaseEnds() {
    registerWithUnread("acme/x1", 3);
    registerWithUnread("acme/x2", 3);
    registerWithUnread("free/y1", 1);
    TestProbe<Object> probe = testKit.createTestProbe();

    // The most unread first: one of acme's agents (once the coordinators published them).
    String first =
        probe.awaitAssert(
            Duration.ofSeconds(15),
            () -> {
              String agent = agentOf(claim("r1", Duration.ZERO));
              assertTrue(agent.startsWith("acme/"), agent);
              return agent;
            });
    // acme's other agent ranks first but acme is at its cap: the same request gets free's agent.
    assertEquals("free/y1", agentOf(claim("r2", Duration.ZERO)));
    // Nothing else: none, not a loop over acme's agents.
    assertInstanceOf(NoWork.class, claim("r3", Duration.ZERO));

    // acme's lease ends: a waiting claim gets acme's other agent.
    var lease = ((AgentEntity.FullState) ask(first, AgentEntity.GetState::new)).state().lease();
    var waiting =
        AskPattern.<Dispatcher.Command, WorkReply>ask(
            rota.dispatcher(),
            r ->
                new RequestWork(
                    new ClaimSpec(
                        "r4", RunnerMode.NOTIFICATION, Set.of(CAP), Duration.ofSeconds(20), 60),
                    null,
                    r),
            Duration.ofSeconds(20).plus(ASK),
            testKit.system().scheduler());
    assertInstanceOf(
        AgentEntity.Done.class,
        ask(first, r -> new AgentEntity.Complete(lease.leaseId(), lease.runnerId(), null, r)));
    String second = agentOf(waiting.toCompletableFuture().join());
    assertTrue(second.startsWith("acme/") && !second.equals(first), second);
  }
}
