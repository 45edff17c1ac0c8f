package dev.rota.cluster.runner;

import static dev.rota.cluster.runner.TestCluster.historyHas;
import static dev.rota.cluster.runner.TestCluster.notifyAgent;
import static dev.rota.cluster.runner.TestCluster.register;
import static dev.rota.cluster.runner.TestCluster.state;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.rota.cluster.agent.AgentChangeListener;
import dev.rota.cluster.agent.AgentEntity;
import dev.rota.cluster.runner.RunnerStatus.Activity;
import dev.rota.cluster.runner.executor.NoopExecutor;
import dev.rota.core.model.ActivationKind;
import dev.rota.core.model.AgentState;
import dev.rota.core.model.FailureAction;
import dev.rota.core.model.RunnerMode;
import dev.rota.core.model.Send;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.LogCapturingExtension;
import org.apache.pekko.actor.testkit.typed.javadsl.LoggingTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.cluster.sharding.typed.javadsl.ClusterSharding;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(LogCapturingExtension.class)
class RunnerTest {
  private static final ActorTestKit KIT =
      TestCluster.start("RunnerTest", "", AgentChangeListener.NONE);
  private static final RunnerSettings SETTINGS = TestCluster.runnerSettings(KIT, "");
  private static final RunnerSettings SHORT_LEASES =
      TestCluster.runnerSettings(KIT, "rota.runners.lease-seconds = 5");
  private static final Duration WAIT = Duration.ofSeconds(10);

  @AfterAll
  static void shutdown() {
    KIT.shutdownTestKit();
  }

  /** A notification-mode runner, so an agent with an empty inbox is not run again for staleness. */
  private ActorRef<Runner.Command> runner(
      String name, RunnerSettings settings, Executor executor, ActorRef<Object> dispatcher) {
    var identity =
        new Runner.Identity("test/" + name, "test", "test", RunnerMode.NOTIFICATION, Set.of());
    return KIT.spawn(
        Runner.create(identity, settings, executor, TestCluster.narrow(dispatcher), null), name);
  }

  private ActorRef<Object> dispatcher(String agentId) {
    return TestCluster.dispatcher(KIT, List.of(agentId), new AtomicInteger());
  }

  private RunnerStatus status(ActorRef<Runner.Command> runner) {
    TestProbe<RunnerStatus> probe = KIT.createTestProbe();
    runner.tell(new Runner.GetStatus(probe.ref()));
    return probe.receiveMessage();
  }

  private void eventually(Runnable assertion) {
    KIT.createTestProbe()
        .awaitAssert(
            WAIT,
            () -> {
              assertion.run();
              return null;
            });
  }

  @Test
  void completesInboxWorkThroughTheNoopExecutor() throws Exception {
    register(KIT, "noop-1");
    notifyAgent(KIT, "noop-1", "message");
    var executor = new RecordingExecutor(new NoopExecutor(Duration.ZERO));
    var runner = runner("noop", SETTINGS, executor, dispatcher("noop-1"));

    Activation activation = executor.nextActivation(WAIT);
    assertEquals("noop-1", activation.agentId());
    assertEquals(ActivationKind.INBOX, activation.lease().kind());
    assertEquals("test/noop", activation.lease().runnerId());
    eventually(
        () -> {
          AgentState agent = state(KIT, "noop-1");
          assertTrue(agent.inbox().isEmpty());
          assertEquals(1, agent.activationCount());
          assertNull(agent.lease());
        });
    eventually(
        () -> {
          RunnerStatus status = status(runner);
          assertEquals(1, status.completed());
          assertNull(status.leaseId());
          assertEquals(Activity.REQUESTING, status.activity());
        });
    KIT.stop(runner);
  }

  @Test
  void deliversTheSendsOfAnExecutorsCompletedOutcome() throws Exception {
    register(KIT, "sender-1");
    register(KIT, "target-1");
    notifyAgent(KIT, "sender-1", "message");
    var payload = JsonNodeFactory.instance.objectNode().put("hello", "target");
    var greeting = new Send("target-1", "greeting", payload, null, null, null);
    var executor =
        new RecordingExecutor(
            activation ->
                CompletableFuture.completedFuture(Outcome.completed(null, List.of(greeting))));
    var runner = runner("sender", SETTINGS, executor, dispatcher("sender-1"));

    eventually(
        () -> {
          AgentState target = state(KIT, "target-1");
          assertEquals(1, target.inbox().size(), target.inbox().toString());
          assertEquals("greeting", target.inbox().get(0).type());
          assertEquals(payload, target.inbox().get(0).payload());
          AgentState sender = state(KIT, "sender-1");
          assertEquals(1, sender.activationCount());
          assertTrue(sender.calls().outbox().isEmpty(), "delivered, so no longer owed");
        });
    KIT.stop(runner);
  }

  @Test
  void heartbeatsKeepALongActivationsLeaseAliveBeyondItsFirstExpiry() throws Exception {
    register(KIT, "slow-1");
    notifyAgent(KIT, "slow-1", "message");
    var executor = new RecordingExecutor(new NoopExecutor(Duration.ofMillis(6500)));
    var runner = runner("slow", SHORT_LEASES, executor, dispatcher("slow-1"));

    Instant firstExpiry = executor.nextActivation(WAIT).lease().expiresAt();
    assertInstanceOf(Outcome.Completed.class, executor.nextOutcome(WAIT));
    assertTrue(Instant.now().isAfter(firstExpiry.plusSeconds(1)), "ran past the first expiry");
    eventually(
        () -> {
          AgentState agent = state(KIT, "slow-1");
          assertEquals(1, agent.activationCount());
          assertTrue(agent.inbox().isEmpty());
          assertFalse(historyHas(agent, "lease.expired"));
        });
    KIT.stop(runner);
  }

  @Test
  void abandonsAndCancelsTheActivationWhenAHeartbeatSaysTheLeaseIsLost() throws Exception {
    register(KIT, "lost-1");
    notifyAgent(KIT, "lost-1", "message");
    ClusterSharding sharding = ClusterSharding.get(KIT.system());
    var first = new AtomicInteger();
    // The first lease is ended behind the runner's back, as a rescuer or an admin could; the
    // runner then takes the still-unread agent again, and that turn completes.
    var executor =
        new RecordingExecutor(
            activation -> {
              if (first.getAndIncrement() > 0) {
                return CompletableFuture.completedFuture(Outcome.completed(null));
              }
              sharding
                  .entityRefFor(AgentEntity.ENTITY_TYPE_KEY, activation.agentId())
                  .<AgentEntity.Reply>ask(
                      r ->
                          new AgentEntity.Fail(
                              activation.leaseId(),
                              activation.lease().runnerId(),
                              FailureAction.SNOOZE,
                              "taken away",
                              0,
                              null,
                              r),
                      WAIT);
              return new CompletableFuture<>();
            });

    ActorRef<Runner.Command> runner =
        LoggingTestKit.warn("abandons agent lost-1")
            .expect(
                KIT.system(),
                () -> {
                  var r = runner("lost", SHORT_LEASES, executor, dispatcher("lost-1"));
                  try {
                    executor.nextActivation(WAIT);
                  } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                  }
                  return r;
                });

    CompletableFuture<Outcome> run = executor.runs.take();
    eventually(() -> assertTrue(run.isCancelled()));
    eventually(
        () -> {
          RunnerStatus status = status(runner);
          assertEquals(1, status.abandoned());
          assertEquals(1, status.completed());
        });
    assertEquals(1, state(KIT, "lost-1").activationCount());
    KIT.stop(runner);
  }

  @Test
  void stopsAnActivationWhenItsLeaseExpiresWithoutASuccessfulHeartbeat() throws Exception {
    register(KIT, "deadline-1");
    notifyAgent(KIT, "deadline-1", "message");
    // Heartbeats far apart: the 5 s lease passes with none, as when they go unanswered.
    RunnerSettings noHeartbeats =
        TestCluster.runnerSettings(
            KIT, "rota.runners.lease-seconds = 5\nrota.runners.heartbeat-interval = 1h");
    var first = new AtomicInteger();
    var executor =
        new RecordingExecutor(
            activation ->
                first.getAndIncrement() == 0
                    ? new CompletableFuture<>()
                    : CompletableFuture.completedFuture(Outcome.completed(null)));
    var runner = runner("deadline", noHeartbeats, executor, dispatcher("deadline-1"));
    Instant expiresAt = executor.nextActivation(WAIT).lease().expiresAt();
    CompletableFuture<Outcome> run = executor.runs.take();
    eventually(() -> assertTrue(run.isCancelled(), "the executor still runs past its lease"));
    assertFalse(
        Instant.now().isBefore(expiresAt.minusMillis(100)), "cancelled before the lease expired");
    eventually(() -> assertEquals(1, status(runner).abandoned()));
    KIT.stop(runner);
  }

  @Test
  void asksAgainAfterTheBackoffWhileTheSystemIsPaused() throws Exception {
    register(KIT, "paused-1");
    notifyAgent(KIT, "paused-1", "message");
    var requests = new AtomicInteger();
    var dispatcher = TestCluster.dispatcher(KIT, List.of("paused-1"), requests);
    dispatcher.tell(new TestDispatcher.SetPaused(true));
    var executor = new RecordingExecutor(new NoopExecutor(Duration.ZERO));
    var runner = runner("paused", SETTINGS, executor, dispatcher);

    Thread.sleep(1000); // the test counts the requests made in a fixed time
    int asked = requests.get();
    // paused-backoff is 200 ms in these tests: about five requests, not a spin.
    assertTrue(asked >= 3 && asked <= 8, "asked " + asked + " times in 1 s");
    assertTrue(executor.activations.isEmpty());
    assertEquals(Activity.BACKING_OFF, status(runner).activity());

    dispatcher.tell(new TestDispatcher.SetPaused(false));
    eventually(() -> assertEquals(1, state(KIT, "paused-1").activationCount()));
    KIT.stop(runner);
  }

  @Test
  void drainLetsTheCurrentActivationFinishThenStops() throws Exception {
    register(KIT, "drain-1");
    notifyAgent(KIT, "drain-1", "message");
    var executor = new RecordingExecutor(new NoopExecutor(Duration.ofMillis(1500)));
    var runner = runner("drain", SETTINGS, executor, dispatcher("drain-1"));
    executor.nextActivation(WAIT);

    TestProbe<Runner.Drained> drained = KIT.createTestProbe();
    runner.tell(new Runner.Drain(Duration.ofSeconds(10), drained.ref()));
    assertEquals("test/drain", drained.receiveMessage(WAIT).runnerId());
    drained.expectTerminated(runner, WAIT);

    AgentState agent = state(KIT, "drain-1");
    assertEquals(1, agent.activationCount());
    assertTrue(agent.inbox().isEmpty());
    assertFalse(historyHas(agent, "activation.failed"));
  }

  @Test
  void drainPastItsDeadlineCancelsTheActivationAndFailsItWithRetry() throws Exception {
    register(KIT, "stuck-1");
    notifyAgent(KIT, "stuck-1", "message");
    var executor = RecordingExecutor.hanging();
    var runner = runner("stuck", SETTINGS, executor, dispatcher("stuck-1"));
    executor.nextActivation(WAIT);

    TestProbe<Runner.Drained> drained = KIT.createTestProbe();
    runner.tell(new Runner.Drain(Duration.ofMillis(500), drained.ref()));
    drained.receiveMessage(WAIT);
    drained.expectTerminated(runner, WAIT);

    assertTrue(executor.runs.take().isCancelled());
    AgentState agent = state(KIT, "stuck-1");
    assertNull(agent.lease());
    assertEquals(1, agent.inbox().size());
    assertEquals(1, agent.inbox().get(0).attempts(), "retry uses up an attempt");
    assertEquals("retry", agent.history().get(0).details().get("action"));
  }

  @Test
  void drainWhileWaitingForWorkHandsALateLeaseBackWithoutUsingAnAttempt() throws Exception {
    register(KIT, "late-1");
    var requests = new AtomicInteger();
    var dispatcher = TestCluster.dispatcher(KIT, List.of("late-1"), requests);
    var executor = new RecordingExecutor(new NoopExecutor(Duration.ZERO));
    var runner = runner("late", SETTINGS, executor, dispatcher);
    eventually(() -> assertEquals(1, requests.get()));

    TestProbe<Runner.Drained> drained = KIT.createTestProbe();
    runner.tell(new Runner.Drain(Duration.ofSeconds(10), drained.ref()));
    drained.receiveMessage(Duration.ofSeconds(1));
    // Work appears while the runner's request is still parked at the dispatcher.
    notifyAgent(KIT, "late-1", "message");
    drained.expectTerminated(runner, WAIT);

    eventually(
        () -> {
          AgentState agent = state(KIT, "late-1");
          assertTrue(historyHas(agent, "lease.granted"));
          assertNull(agent.lease());
          assertEquals(1, agent.inbox().size());
          assertEquals(0, agent.inbox().get(0).attempts());
          assertFalse(agent.isSnoozed(Instant.now()));
        });
    assertTrue(executor.activations.isEmpty(), "a draining runner runs nothing");
  }
}
