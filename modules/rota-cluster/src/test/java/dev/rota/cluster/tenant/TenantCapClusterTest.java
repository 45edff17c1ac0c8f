package dev.rota.cluster.tenant;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.rota.cluster.agent.AgentChangeListener;
import dev.rota.cluster.agent.AgentEntity;
import dev.rota.cluster.agent.AgentLeaseProbe;
import dev.rota.cluster.agent.AgentSettings;
import dev.rota.cluster.agent.AgentSharding;
import dev.rota.cluster.testing.Agents;
import dev.rota.cluster.testing.SingleNodeCluster;
import dev.rota.cluster.testing.TestDatabase;
import dev.rota.core.model.AgentConfigPatch;
import dev.rota.core.model.ClaimSpec;
import dev.rota.core.model.Ids;
import dev.rota.core.model.Lease;
import dev.rota.core.model.RunnerMode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.LogCapturingExtension;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.cluster.MemberStatus;
import org.apache.pekko.cluster.typed.Cluster;
import org.apache.pekko.cluster.typed.Down;
import org.apache.pekko.cluster.typed.Join;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A tenant's cap across two nodes sharing one journal (H2): runners on both nodes hammer claims on
 * the agents of {@code acme} (max-concurrent = 2) and the leases they hold at once, as they see
 * them, never pass 2, while the same hammer on an uncapped tenant does pass it (so the count can
 * see an excess). Then a node is downed while leases are held: its agents and the gate recover on
 * the other node, and the cap still counts the leases they held.
 */
@ExtendWith(LogCapturingExtension.class)
class TenantCapClusterTest {
  private static final TestDatabase DB = TestDatabase.h2();
  private static final int AGENTS = 8;
  private static final int THREADS = 8;
  private static final int CLAIMS_PER_THREAD = 40;

  private static ActorTestKit first;
  private static ActorTestKit second;

  private static Config config() {
    return ConfigFactory.parseString(
            """
            rota.partitions = 4
            rota.tenants { acme { max-concurrent = 2 } }
            rota.tenant-caps.check-every = 200ms
            pekko.cluster.run-coordinated-shutdown-when-down = on
            pekko.cluster.downing-provider-class = ""
            """)
        .withFallback(SingleNodeCluster.config())
        .withFallback(DB.pekkoConfig())
        .withFallback(ConfigFactory.load());
  }

  @BeforeAll
  static void start() {
    first = ActorTestKit.create("TenantCapClusterTest", config());
    second = ActorTestKit.create("TenantCapClusterTest", config());
    var address = Cluster.get(first.system()).selfMember().address();
    Cluster.get(first.system()).manager().tell(Join.create(address));
    Cluster.get(second.system()).manager().tell(Join.create(address));
    for (ActorTestKit kit : List.of(first, second)) {
      TestProbe<Object> probe = kit.createTestProbe();
      probe.awaitAssert(
          Duration.ofSeconds(30),
          () -> {
            var members = Cluster.get(kit.system()).state().getMembers();
            int up = 0;
            for (var m : members) {
              if (m.status() == MemberStatus.up()) {
                up++;
              }
            }
            assertEquals(2, up);
            return null;
          });
      AgentSettings settings = AgentSettings.from(kit.system().settings().config());
      AgentSharding.init(kit.system(), settings, AgentChangeListener.NONE);
      TenantGate.init(kit.system(), new AgentLeaseProbe(kit.system(), Duration.ofSeconds(2)));
    }
    Agents agents = new Agents(first.system());
    TestProbe<Object> probe = first.createTestProbe();
    for (int i = 0; i < AGENTS; i++) {
      for (String key : List.of("acme/a" + i, "free/f" + i)) {
        // The first message to a shard waits for its allocation: on a loaded machine, a while.
        probe.awaitAssert(
            Duration.ofSeconds(60), () -> agents.register(key, AgentConfigPatch.empty()));
      }
    }
  }

  @AfterAll
  static void stop() {
    second.shutdownTestKit();
    first.shutdownTestKit();
    DB.close();
  }

  /** What a hammer saw: the most leases held at once, and the denials by reason. */
  private record Seen(int maxHeld, int granted, ConcurrentHashMap<String, AtomicInteger> denied) {}

  /**
   * Threads claim the tenant's agents through both nodes, each holding a granted lease for a few
   * milliseconds before completing it. A lease counts as held from its grant's arrival until just
   * before its completion is sent: inside the time the agent holds it, so more than the cap at once
   * here is more than the cap held.
   */
  private static Seen hammer(String tenant, String prefix) throws Exception {
    List<Agents> nodes = List.of(new Agents(first.system()), new Agents(second.system()));
    AtomicInteger held = new AtomicInteger();
    AtomicInteger max = new AtomicInteger();
    AtomicInteger granted = new AtomicInteger();
    ConcurrentHashMap<String, AtomicInteger> denied = new ConcurrentHashMap<>();
    ExecutorService pool = Executors.newFixedThreadPool(THREADS);
    List<Future<?>> done = new ArrayList<>();
    for (int t = 0; t < THREADS; t++) {
      String runner = tenant + "-runner-" + t;
      done.add(
          pool.submit(
              () -> {
                ThreadLocalRandom random = ThreadLocalRandom.current();
                for (int c = 0; c < CLAIMS_PER_THREAD; c++) {
                  String key = tenant + "/" + prefix + random.nextInt(AGENTS);
                  Agents node = nodes.get(random.nextInt(2));
                  AgentEntity.Reply reply =
                      node.ask(
                          key,
                          r ->
                              new AgentEntity.Claim(
                                  new ClaimSpec(
                                      runner, RunnerMode.HYBRID, Set.of(), Duration.ZERO, 30),
                                  r));
                  if (reply instanceof AgentEntity.Granted g) {
                    granted.incrementAndGet();
                    int now = held.incrementAndGet();
                    max.accumulateAndGet(now, Math::max);
                    sleep(random.nextInt(2, 15));
                    held.decrementAndGet();
                    nodes.get(random.nextInt(2)).complete(key, g.lease());
                  } else if (reply instanceof AgentEntity.Denied d) {
                    denied.computeIfAbsent(d.reason(), r -> new AtomicInteger()).incrementAndGet();
                  }
                }
                return null;
              }));
    }
    for (Future<?> f : done) {
      f.get(5, TimeUnit.MINUTES);
    }
    pool.shutdown();
    return new Seen(max.get(), granted.get(), denied);
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  @Test
  void theCapHoldsAcrossNodesAndThroughTheLossOfANode() throws Exception {
    Seen free = hammer("free", "f");
    assertTrue(
        free.maxHeld() > 2,
        "the uncapped tenant held at most " + free.maxHeld() + ": the hammer shows no excess");

    Seen capped = hammer("acme", "a");
    assertTrue(capped.maxHeld() <= 2, "acme held " + capped.maxHeld() + " leases at once");
    assertEquals(
        2, capped.maxHeld(), "the hammer never reached the cap; denied: " + capped.denied());
    assertTrue(capped.denied().containsKey(Permits.TENANT_CAP), "denied: " + capped.denied());
    assertTrue(capped.granted() > 2);

    // Two leases held, one claimed through each node; then the second node is lost.
    Agents one = new Agents(first.system());
    Agents two = new Agents(second.system());
    Lease a0 = one.claim("acme/a0", "keeper-1", 300).lease();
    Lease a1 = two.claim("acme/a1", "keeper-2", 300).lease();
    var secondAddress = Cluster.get(second.system()).selfMember().address();
    Cluster.get(first.system()).manager().tell(new Down(secondAddress));
    second.system().getWhenTerminated().toCompletableFuture().get(60, TimeUnit.SECONDS);

    // Every agent and the gate now live on the first node, recovered from the journal: the two
    // leases still count, whichever node the gate and their agents lived on.
    TestProbe<Object> probe = first.createTestProbe();
    for (int i = 2; i < AGENTS; i++) {
      String key = "acme/a" + i;
      AgentEntity.Reply reply =
          probe.awaitAssert(
              Duration.ofSeconds(60),
              () -> {
                AgentEntity.Reply r =
                    one.ask(
                        key,
                        ref ->
                            new AgentEntity.Claim(
                                new ClaimSpec(
                                    "late", RunnerMode.HYBRID, Set.of(), Duration.ZERO, 30),
                                ref));
                assertInstanceOf(AgentEntity.Denied.class, r);
                assertTrue(((AgentEntity.Denied) r).byTenant(), "denied " + r);
                return r;
              });
      assertEquals(Permits.TENANT_CAP, ((AgentEntity.Denied) reply).reason());
    }
    one.complete("acme/a1", a1);
    Lease next =
        probe.awaitAssert(Duration.ofSeconds(30), () -> one.claim("acme/a2", "late", 30).lease());
    assertEquals("acme/a2", Ids.agentOf(next.leaseId()).orElseThrow());
    one.complete("acme/a0", a0);
    one.complete("acme/a2", next);
  }
}
