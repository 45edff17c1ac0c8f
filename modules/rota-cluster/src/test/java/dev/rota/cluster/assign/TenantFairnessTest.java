package dev.rota.cluster.assign;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.cluster.RotaCluster;
import dev.rota.cluster.agent.AgentEntity;
import dev.rota.cluster.assign.WorkProtocol.Assigned;
import dev.rota.cluster.assign.WorkProtocol.RequestWork;
import dev.rota.cluster.assign.WorkProtocol.WorkReply;
import dev.rota.cluster.tenant.TenantSharesView;
import dev.rota.cluster.testing.ClusterTestConfig;
import dev.rota.core.model.AgentConfigPatch;
import dev.rota.core.model.ClaimSpec;
import dev.rota.core.model.Ids;
import dev.rota.core.model.RunnerMode;
import dev.rota.core.tenant.AgentKeys;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Collectors;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.LogCapturingExtension;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.javadsl.AskPattern;
import org.apache.pekko.cluster.sharding.typed.javadsl.ClusterSharding;
import org.apache.pekko.cluster.typed.Cluster;
import org.apache.pekko.cluster.typed.Join;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The rule across tenants on one node with real agents, coordinators and dispatcher: tenants from
 * {@code rota.tenants}, agents keyed {@code <tenant>/<id>} registered through sharding. Each test's
 * agents require a capability named after the test, and its runners offer only that one.
 */
@ExtendWith(LogCapturingExtension.class)
class TenantFairnessTest {
  private static final Duration ASK = Duration.ofSeconds(10);
  private static ActorTestKit testKit;
  private static RotaCluster rota;
  private static ClusterSharding sharding;

  private String cap;

  @BeforeAll
  static void startNode() {
    testKit =
        ActorTestKit.create(
            "TenantFairnessTest",
            ClusterTestConfig.inMemory(
                """
                rota.partitions = 4
                rota.coordinator.settle = 500ms
                rota.tenants { acme { weight = 3 }, beta { weight = 1 }, loud {}, quiet {} }
                """));
    Cluster cluster = Cluster.get(testKit.system());
    cluster.manager().tell(Join.create(cluster.selfMember().address()));
    rota = RotaCluster.start(testKit.system(), PartitionLoader.EMPTY);
    sharding = ClusterSharding.get(testKit.system());
  }

  @AfterAll
  static void stopNode() {
    testKit.shutdownTestKit();
  }

  @org.junit.jupiter.api.BeforeEach
  void capabilityPerTest(TestInfo info) {
    cap = info.getTestMethod().orElseThrow().getName();
  }

  private String register(String tenant, String id) {
    String key = AgentKeys.key(tenant, id);
    assertInstanceOf(
        AgentEntity.AgentDetails.class,
        ask(
            key,
            r ->
                new AgentEntity.Register(
                    new AgentConfigPatch(null, List.of(cap), null, null, null, null, null), r)));
    return key;
  }

  private void notify(String key, int times) {
    for (int i = 0; i < times; i++) {
      assertInstanceOf(
          AgentEntity.Accepted.class,
          ask(key, r -> new AgentEntity.Notify("mention", null, null, r)));
    }
  }

  private AgentEntity.Reply ask(
      String key,
      org.apache.pekko.japi.function.Function<ActorRef<AgentEntity.Reply>, AgentEntity.Command>
          message) {
    return sharding
        .entityRefFor(AgentEntity.ENTITY_TYPE_KEY, key)
        .ask(message, ASK)
        .toCompletableFuture()
        .join();
  }

  private AgentEntity.Granted claim(String runnerId, RunnerMode mode) {
    WorkReply reply =
        AskPattern.<Dispatcher.Command, WorkReply>ask(
                rota.dispatcher(),
                r ->
                    new RequestWork(
                        new ClaimSpec(runnerId, mode, Set.of(cap), Duration.ofSeconds(5), 60),
                        null,
                        r),
                Duration.ofSeconds(5).plus(ASK),
                testKit.system().scheduler())
            .toCompletableFuture()
            .join();
    return assertInstanceOf(Assigned.class, reply).granted();
  }

  private void complete(AgentEntity.Granted g) {
    String key = keyOf(g);
    assertInstanceOf(
        AgentEntity.Done.class,
        ask(
            key,
            r -> new AgentEntity.Complete(g.lease().leaseId(), g.lease().runnerId(), null, r)));
  }

  private static void turn() {
    try {
      Thread.sleep(20);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private static String keyOf(AgentEntity.Granted g) {
    return Ids.agentOf(g.lease().leaseId()).orElseThrow();
  }

  @Test
  void twoSaturatedTenantsOfWeightsThreeAndOneShareGrantsThreeToOne() throws Exception {
    for (int i = 0; i < 12; i++) {
      register("acme", "a" + i);
      register("beta", "b" + i);
    }
    // Four runners, each holding its lease for a turn of 20 ms, again and again: both tenants
    // always have staleness work. The rule shares runner time; with turns of one length, grants
    // follow it.
    List<String> tenants = Collections.synchronizedList(new ArrayList<>());
    int perRunner = 300;
    List<CompletableFuture<Void>> runners = new ArrayList<>();
    for (int r = 0; r < 4; r++) {
      String runnerId = cap + "-r" + r;
      runners.add(
          CompletableFuture.runAsync(
              () -> {
                for (int i = 0; i < perRunner; i++) {
                  AgentEntity.Granted g = claim(runnerId, RunnerMode.EXPLORATION);
                  tenants.add(AgentKeys.tenantOf(keyOf(g)));
                  turn();
                  complete(g);
                }
              }));
    }
    CompletableFuture.allOf(runners.toArray(CompletableFuture[]::new)).get();
    // The first grants are charged before any turn has been measured: count after them.
    List<String> counted = tenants.subList(200, tenants.size());
    Map<String, Long> byTenant =
        counted.stream().collect(Collectors.groupingBy(t -> t, Collectors.counting()));
    TestProbe<TenantSharesView> probe = testKit.createTestProbe();
    rota.dispatcher().tell(new Dispatcher.GetTenantShares(probe.ref()));
    TenantSharesView view = probe.receiveMessage();
    Map<String, TenantSharesView.Share> shares =
        view.tenants().stream().collect(Collectors.toMap(TenantSharesView.Share::tenant, s -> s));
    double acme = (double) byTenant.getOrDefault("acme", 0L) / counted.size();
    assertTrue(
        Math.abs(acme - 0.75) <= 0.05,
        "acme had " + acme + " of " + counted.size() + " grants: " + byTenant + "; " + view);

    assertEquals(3, shares.get("acme").weight());
    assertEquals(tenants.stream().filter("acme"::equals).count(), shares.get("acme").activations());
    assertEquals(tenants.stream().filter("beta"::equals).count(), shares.get("beta").activations());
    // Other tests' tenants may have used runners within the minute too: compare acme with beta.
    assertEquals(3.0, shares.get("acme").fair() / shares.get("beta").fair(), 1e-9);
    assertTrue(shares.get("acme").actual() > shares.get("beta").actual(), shares.toString());
  }

  @Test
  void aQuietTenantsNotificationIsServedBesideAFloodedTenant() {
    List<String> loud = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      loud.add(register("loud", "l" + i));
    }
    String quiet = register("quiet", "q1");
    for (String key : loud) {
      notify(key, 5);
    }
    notify(quiet, 1);
    // The single-tenant rule would serve all twenty loud agents (five unread each) first.
    List<String> served = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      AgentEntity.Granted g = claim(cap + "-r", RunnerMode.HYBRID);
      served.add(keyOf(g));
      complete(g);
    }
    assertTrue(served.contains(quiet), "served " + served);
  }

  @Test
  void aRequestOfOneTenantGetsOnlyItsAgents() {
    register("acme", "x1");
    String b = register("beta", "x1");
    notify(AgentKeys.key("acme", "x1"), 3);
    notify(b, 1);
    WorkReply reply =
        AskPattern.<Dispatcher.Command, WorkReply>ask(
                rota.dispatcher(),
                r ->
                    new RequestWork(
                        new ClaimSpec(
                            "r-beta",
                            RunnerMode.NOTIFICATION,
                            Set.of(cap),
                            Duration.ofSeconds(5),
                            60,
                            Set.of("beta")),
                        null,
                        r),
                Duration.ofSeconds(5).plus(ASK),
                testKit.system().scheduler())
            .toCompletableFuture()
            .join();
    assertEquals(b, keyOf(assertInstanceOf(Assigned.class, reply).granted()));
  }

  @Test
  void theMessagesWithTenantsSerialize() {
    TestProbe<TenantSharesView> probe = testKit.createTestProbe();
    List<Object> messages =
        List.of(
            new Dispatcher.Heads(
                1,
                1_700_000_000_000L,
                7,
                List.of(),
                1_700_000_000_500L,
                Map.of("acme", new dev.rota.core.tenant.TenantLoad(2, 40, 900, 45, 47))),
            new Dispatcher.GetTenantShares(probe.ref()),
            new TenantSharesView(
                60.0, List.of(new TenantSharesView.Share("acme", 3, 120, 2.5, 0.74, 0.75, 2))));
    for (Object message : messages) {
      assertEquals(message, testKit.serializationTestKit().verifySerialization(message, true));
    }
  }
}
