package dev.rota.cluster.runner;

import static dev.rota.cluster.runner.TestCluster.historyHas;
import static dev.rota.cluster.runner.TestCluster.notifyAgent;
import static dev.rota.cluster.runner.TestCluster.register;
import static dev.rota.cluster.runner.TestCluster.state;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.cluster.agent.AgentChangeListener;
import dev.rota.cluster.runner.RunnerPool.DesiredSet;
import dev.rota.cluster.runner.RunnerPool.Runners;
import dev.rota.cluster.runner.RunnerPool.SetDesiredReply;
import dev.rota.cluster.runner.RunnerPool.UnknownPool;
import dev.rota.cluster.runner.executor.NoopExecutor;
import dev.rota.core.model.AgentState;
import dev.rota.core.model.RunnerMode;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.LogCapturingExtension;
import org.apache.pekko.actor.testkit.typed.javadsl.LoggingTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(LogCapturingExtension.class)
class RunnerPoolTest {
  private static final ActorTestKit KIT =
      TestCluster.start("RunnerPoolTest", "", AgentChangeListener.NONE);
  private static final Duration WAIT = Duration.ofSeconds(10);
  private static final Executor NOOP = new NoopExecutor(Duration.ZERO);

  @AfterAll
  static void shutdown() {
    KIT.shutdownTestKit();
  }

  private static ActorRef<RunnerPool.Command> pool(
      String config, Map<String, Executor> executors, List<String> agents) {
    RunnerSettings settings = TestCluster.runnerSettings(KIT, config);
    var dispatcher = TestCluster.dispatcher(KIT, agents, new AtomicInteger());
    return KIT.spawn(
        RunnerPool.create(TestCluster.narrow(dispatcher), settings, "node-x", executors));
  }

  private static Runners runners(ActorRef<RunnerPool.Command> pool) {
    TestProbe<Runners> probe = KIT.createTestProbe();
    pool.tell(new RunnerPool.GetRunners(probe.ref()));
    return probe.receiveMessage();
  }

  private static Runners eventually(ActorRef<RunnerPool.Command> pool, Consumer<Runners> check) {
    return KIT.createTestProbe()
        .awaitAssert(
            WAIT,
            () -> {
              Runners runners = runners(pool);
              check.accept(runners);
              return runners;
            });
  }

  private static SetDesiredReply setDesired(
      ActorRef<RunnerPool.Command> pool, String name, int count) {
    TestProbe<SetDesiredReply> probe = KIT.createTestProbe();
    pool.tell(new RunnerPool.SetDesired(name, count, probe.ref()));
    return probe.receiveMessage();
  }

  @Test
  void startsTheConfiguredRunnersWithNodeQualifiedIds() {
    var pool =
        pool(
            "rota.runners.pools = [{name = scouts, count = 3, mode = exploration,"
                + " capabilities = [gpu]}]",
            Map.of("scouts", NOOP),
            List.of());

    Runners runners = eventually(pool, r -> assertEquals(3, r.runners().size()));

    assertEquals("node-x", runners.node());
    assertEquals(Map.of("scouts", 3), runners.desired());
    assertEquals(
        List.of("node-x/scouts-1", "node-x/scouts-2", "node-x/scouts-3"),
        runners.runners().stream().map(RunnerStatus::runnerId).toList());
    for (RunnerStatus status : runners.runners()) {
      assertEquals(RunnerMode.EXPLORATION, status.mode());
      assertEquals(Set.of("gpu"), status.capabilities());
      assertEquals("node-x", status.node());
      assertNull(status.leaseId());
      assertFalse(status.draining());
    }
    KIT.stop(pool);
  }

  @Test
  void clampsAConfiguredCountAboveTheNodeMaximumWithAWarning() {
    var pool =
        LoggingTestKit.warn("20 runners asked, 16 kept")
            .expect(
                KIT.system(),
                () ->
                    pool(
                        "rota.runners.pools = [{name = big, count = 20}]",
                        Map.of("big", NOOP),
                        List.of()));

    eventually(pool, r -> assertEquals(16, r.runners().size()));
    assertEquals(Map.of("big", 16), runners(pool).desired());
    KIT.stop(pool);
  }

  @Test
  void poolsShareTheNodeMaximum() {
    var pool =
        pool(
            "rota.runners { max-per-node = 8, pools = [{name = a, count = 6}, {name = b, count ="
                + " 6}] }",
            Map.of("a", NOOP, "b", NOOP),
            List.of());

    eventually(pool, r -> assertEquals(8, r.runners().size()));
    assertEquals(Map.of("a", 6, "b", 2), runners(pool).desired());
    KIT.stop(pool);
  }

  @Test
  void setDesiredScalesWithinThePoolsBounds() {
    var pool =
        pool(
            "rota.runners.pools = [{name = default, count = 2, min = 1, max = 4}]",
            Map.of("default", NOOP),
            List.of());
    eventually(pool, r -> assertEquals(2, r.runners().size()));

    assertEquals(new DesiredSet("default", 3, 3), setDesired(pool, "default", 3));
    eventually(pool, r -> assertEquals(3, r.runners().size()));

    assertEquals(new DesiredSet("default", 10, 4), setDesired(pool, "default", 10));
    eventually(pool, r -> assertEquals(4, r.runners().size()));

    assertEquals(new DesiredSet("default", 0, 1), setDesired(pool, "default", 0));
    Runners one = eventually(pool, r -> assertEquals(1, r.runners().size()));
    assertEquals("node-x/default-1", one.runners().get(0).runnerId(), "the highest go first");

    assertEquals(new UnknownPool("nope"), setDesired(pool, "nope", 2));
    KIT.stop(pool);
  }

  @Test
  void disabledRunnersStartNone() {
    var pool = pool("rota.runners.enabled = false", Map.of(), List.of());

    Runners runners = runners(pool);
    assertTrue(runners.runners().isEmpty());
    assertTrue(runners.desired().isEmpty());
    KIT.stop(pool);
  }

  @Test
  void scalingDownLetsTheRemovedRunnerFinishItsActivation() {
    register(KIT, "scale-1");
    notifyAgent(KIT, "scale-1", "message");
    var pool =
        pool(
            "rota.runners.pools = [{name = w, count = 1, min = 0, mode = notification}]",
            Map.of("w", new NoopExecutor(Duration.ofMillis(1500))),
            List.of("scale-1"));
    eventually(pool, r -> assertEquals("scale-1", r.runners().get(0).agentId()));

    assertEquals(new DesiredSet("w", 0, 0), setDesired(pool, "w", 0));
    // The runner reports its draining state to the pool once it has taken the Drain in.
    eventually(
        pool,
        r -> {
          assertTrue(r.runners().get(0).draining());
          assertEquals("scale-1", r.runners().get(0).agentId(), "still running its activation");
        });

    eventually(pool, r -> assertTrue(r.runners().isEmpty()));
    AgentState agent = state(KIT, "scale-1");
    assertEquals(1, agent.activationCount());
    assertFalse(historyHas(agent, "activation.failed"));
    KIT.stop(pool);
  }

  @Test
  void messagesThatCrossNodesSurviveSerialization() {
    var serialization = KIT.serializationTestKit();
    TestProbe<Object> probe = KIT.createTestProbe();
    var status =
        new RunnerStatus(
            "node-x/default-1",
            "node-x",
            "default",
            RunnerMode.HYBRID,
            Set.of("gpu"),
            RunnerStatus.Activity.EXECUTING,
            false,
            "lease-1",
            "a1",
            java.time.Instant.parse("2026-11-22T09:00:00Z"),
            3,
            1,
            0);
    for (Object message :
        List.of(
            new RunnerPool.GetRunners(probe.ref().narrow()),
            new Runners("node-x", List.of(status), Map.of("default", 4)),
            new RunnerPool.SetDesired("default", 3, probe.ref().narrow()),
            new DesiredSet("default", 20, 16),
            new UnknownPool("nope"),
            new Runner.GetStatus(probe.ref().narrow()))) {
      serialization.verifySerialization(message, true);
    }
  }
}
