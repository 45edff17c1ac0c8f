package dev.rota.cluster.runner;

import static dev.rota.cluster.runner.TestCluster.historyHas;
import static dev.rota.cluster.runner.TestCluster.notifyAgent;
import static dev.rota.cluster.runner.TestCluster.register;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.core.model.AgentState;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.pekko.actor.CoordinatedShutdown;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.LogCapturingExtension;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Graceful leave, for real: a node started through {@link RunnerPool#init} runs CoordinatedShutdown
 * while two activations are in flight. The agents' own change stream shows what they became before
 * the node was gone.
 */
@ExtendWith(LogCapturingExtension.class)
class RunnerPoolShutdownTest {
  private static final Map<String, AgentState> AGENTS = new ConcurrentHashMap<>();
  private static final ActorTestKit KIT =
      TestCluster.start(
          "RunnerPoolShutdownTest",
          """
          rota.runners {
            enabled = true
            shutdown-timeout = 2s
            noop.delay = 1s
            pools = [
              {name = quick, count = 1, mode = notification, capabilities = [quick]}
              {name = stuck, count = 1, mode = notification, capabilities = [stuck],
               executor = "dev.rota.cluster.runner.RunnerPoolShutdownTest$Hanging"}
            ]
          }
          """,
          (state, seqNr) -> AGENTS.put(state.agentId(), state));

  /** Never finishes on its own; named in config to exercise executors given by class name. */
  public static final class Hanging implements Executor {
    static final LinkedBlockingQueue<CompletableFuture<Outcome>> RUNS = new LinkedBlockingQueue<>();

    @Override
    public CompletionStage<Outcome> execute(Activation activation) {
      var run = new CompletableFuture<Outcome>();
      RUNS.add(run);
      return run;
    }
  }

  @AfterAll
  static void shutdown() {
    KIT.shutdownTestKit();
  }

  @Test
  void leavingNodeFinishesQuickActivationsAndFailsStuckOnesWithRetryBeforeItGoes()
      throws Exception {
    register(KIT, "leave-quick", null, List.of("quick"));
    register(KIT, "leave-stuck", null, List.of("stuck"));
    notifyAgent(KIT, "leave-quick", "message");
    notifyAgent(KIT, "leave-stuck", "message");
    var dispatcher =
        TestCluster.dispatcher(KIT, List.of("leave-quick", "leave-stuck"), new AtomicInteger());
    var pool =
        RunnerPool.init(
            KIT.system(),
            TestCluster.narrow(dispatcher),
            RunnerSettings.from(KIT.system().settings().config()));
    TestProbe<RunnerPool.Runners> probe = KIT.createTestProbe();
    probe.awaitAssert(
        Duration.ofSeconds(10),
        () -> {
          pool.tell(new RunnerPool.GetRunners(probe.ref()));
          var runners = probe.receiveMessage().runners();
          assertEquals(2, runners.size());
          assertTrue(runners.stream().allMatch(RunnerStatus::busy), "both busy: " + runners);
          return null;
        });

    CoordinatedShutdown.get(KIT.system())
        .runAll(CoordinatedShutdown.unknownReason())
        .toCompletableFuture()
        .get(30, TimeUnit.SECONDS);

    AgentState quick = AGENTS.get("leave-quick");
    assertEquals(1, quick.activationCount(), "finished within the deadline");
    assertTrue(quick.inbox().isEmpty());
    assertFalse(historyHas(quick, "activation.failed"));

    AgentState stuck = AGENTS.get("leave-stuck");
    assertNull(stuck.lease(), "failed, not left to expire");
    assertEquals(1, stuck.inbox().get(0).attempts());
    assertEquals("retry", stuck.history().get(0).details().get("action"));
    assertTrue(Hanging.RUNS.take().isCancelled());
  }
}
