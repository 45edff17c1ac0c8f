package dev.rota.cluster.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.rota.cluster.tenant.Permits;
import dev.rota.cluster.tenant.TenantGate;
import dev.rota.cluster.testing.Agents;
import dev.rota.cluster.testing.SingleNodeCluster;
import dev.rota.cluster.testing.TestDatabase;
import dev.rota.core.model.AgentConfigPatch;
import dev.rota.core.model.ClaimSpec;
import dev.rota.core.model.NewInput;
import dev.rota.core.model.RunnerMode;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.LogCapturingExtension;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A lease that new input interrupts gives its tenant's {@code max-concurrent} permit back at once,
 * as a completed one does: tenant {@code acme} is capped at one lease, an agent holds a ten-minute
 * lease, a notification interrupts it, and another agent of the tenant is granted its turn ({@code
 * beta} likewise, interrupted by a batch).
 */
@ExtendWith(LogCapturingExtension.class)
class InterruptReleasesTenantPermitTest {
  private static final TestDatabase DB = TestDatabase.h2();
  private static ActorTestKit kit;
  private static Agents agents;

  @BeforeAll
  static void start() {
    Config config =
        ConfigFactory.parseString(
                """
                rota.partitions = 2
                rota.tenants { acme { max-concurrent = 1 }, beta { max-concurrent = 1 } }
                """)
            .withFallback(SingleNodeCluster.config())
            .withFallback(DB.pekkoConfig())
            .withFallback(ConfigFactory.load());
    kit = ActorTestKit.create("InterruptReleasesTenantPermitTest", config);
    SingleNodeCluster.join(kit.system());
    AgentSharding.init(
        kit.system(),
        AgentSettings.from(kit.system().settings().config()),
        AgentChangeListener.NONE);
    TenantGate.init(kit.system(), new AgentLeaseProbe(kit.system(), Duration.ofSeconds(2)));
    agents = new Agents(kit.system());
    TestProbe<Object> probe = kit.createTestProbe();
    AgentConfigPatch interrupting =
        new AgentConfigPatch(
            null, null, null, null, null, null, null, null, NewInput.INTERRUPT, null, null);
    for (String key : List.of("acme/one", "acme/two", "beta/three", "beta/four")) {
      // The first message to a shard waits for its allocation: on a loaded machine, a while.
      probe.awaitAssert(Duration.ofSeconds(60), () -> agents.register(key, interrupting));
    }
  }

  @AfterAll
  static void stop() {
    kit.shutdownTestKit();
    DB.close();
  }

  @Test
  void anInterruptedLeaseGivesItsTenantPermitBack() {
    agents.claim("acme/one", "r1", 600);
    assertCapped("acme/two");

    AgentEntity.Reply reply =
        agents.ask(
            "acme/one",
            r ->
                new AgentEntity.Notify(
                    "stop", JsonNodeFactory.instance.objectNode(), null, NewInput.INTERRUPT, r));
    assertTrue(assertInstanceOf(AgentEntity.Accepted.class, reply).interrupted());

    AgentEntity.Granted next = grantedSoon("acme/two", "r2");
    agents.complete("acme/two", next.lease());
  }

  @Test
  void aBatchThatInterruptsGivesItsTenantPermitBack() {
    agents.claim("beta/three", "r3", 600);
    assertCapped("beta/four");

    AgentEntity.Reply reply =
        agents.ask(
            "beta/three",
            r ->
                new AgentEntity.NotifyAll(
                    List.of(
                        new AgentEntity.NotifyItem(
                            "stop", JsonNodeFactory.instance.objectNode(), null)),
                    r));
    AgentEntity.AcceptedAll all = assertInstanceOf(AgentEntity.AcceptedAll.class, reply);
    assertTrue(assertInstanceOf(AgentEntity.Accepted.class, all.items().get(0)).interrupted());

    AgentEntity.Granted next = grantedSoon("beta/four", "r4");
    agents.complete("beta/four", next.lease());
  }

  private static void assertCapped(String key) {
    AgentEntity.Reply denied =
        agents.ask(
            key,
            r ->
                new AgentEntity.Claim(
                    new ClaimSpec("other", RunnerMode.HYBRID, Set.of(), Duration.ZERO, 30), r));
    assertEquals(Permits.TENANT_CAP, assertInstanceOf(AgentEntity.Denied.class, denied).reason());
  }

  /**
   * The permit goes back by a message to the tenant's gate, so the grant may take a moment; far
   * less than the interrupted lease's ten minutes, or the gate's own check of held leases.
   */
  private static AgentEntity.Granted grantedSoon(String key, String runner) {
    TestProbe<Object> probe = kit.createTestProbe();
    return probe.awaitAssert(
        Duration.ofSeconds(5),
        Duration.ofMillis(100),
        () -> {
          AgentEntity.Reply r =
              agents.ask(
                  key,
                  ref ->
                      new AgentEntity.Claim(
                          new ClaimSpec(runner, RunnerMode.HYBRID, Set.of(), Duration.ZERO, 30),
                          ref));
          return assertInstanceOf(
              AgentEntity.Granted.class, r, "claim of " + key + " answered " + r);
        });
  }
}
