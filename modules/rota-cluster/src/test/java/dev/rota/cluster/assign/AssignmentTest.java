package dev.rota.cluster.assign;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.cluster.RotaCluster;
import dev.rota.cluster.agent.AgentEntity;
import dev.rota.cluster.assign.WorkProtocol.Assigned;
import dev.rota.cluster.assign.WorkProtocol.NoWork;
import dev.rota.cluster.assign.WorkProtocol.RequestWork;
import dev.rota.cluster.assign.WorkProtocol.WorkReply;
import dev.rota.cluster.system.SystemControl;
import dev.rota.cluster.testing.ClusterTestConfig;
import dev.rota.core.model.ActivationKind;
import dev.rota.core.model.AgentConfigPatch;
import dev.rota.core.model.ClaimSpec;
import dev.rota.core.model.RunnerMode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.LogCapturingExtension;
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
 * The assignment rule end to end on one node: real agents, coordinators and dispatcher. Each test's
 * agents require a capability named after the test, and its runners offer only that one, so tests
 * sharing the node never see each other's agents.
 */
@ExtendWith(LogCapturingExtension.class)
class AssignmentTest {
  private static final Duration ASK = Duration.ofSeconds(10);
  private static ActorTestKit testKit;
  private static RotaCluster rota;
  private static ClusterSharding sharding;

  private String cap;

  @BeforeAll
  static void startNode() {
    testKit =
        ActorTestKit.create(
            "AssignmentTest",
            ClusterTestConfig.inMemory(
                "rota.partitions = 4\nrota.scheduling.inbox-max-wait = 3s\n"
                    // a loaded machine can stretch the coordination window (decision 26)
                    + "rota.coordinator.settle = 500ms"));
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

  private String register(String name) {
    return register(name, null);
  }

  private String register(String name, Long minIntervalSeconds) {
    String id = cap + "-" + name;
    AgentEntity.Reply reply =
        ask(
            id,
            r ->
                new AgentEntity.Register(
                    new AgentConfigPatch(
                        null, List.of(cap), null, minIntervalSeconds, null, null, null),
                    r));
    assertInstanceOf(AgentEntity.AgentDetails.class, reply);
    return id;
  }

  private void notify(String agentId, int times) {
    for (int i = 0; i < times; i++) {
      assertInstanceOf(
          AgentEntity.Accepted.class,
          ask(agentId, r -> new AgentEntity.Notify("mention", null, null, r)));
    }
  }

  private AgentEntity.Reply ask(
      String agentId,
      org.apache.pekko.japi.function.Function<
              org.apache.pekko.actor.typed.ActorRef<AgentEntity.Reply>, AgentEntity.Command>
          message) {
    return sharding
        .entityRefFor(AgentEntity.ENTITY_TYPE_KEY, agentId)
        .ask(message, ASK)
        .toCompletableFuture()
        .join();
  }

  private CompletionStage<WorkReply> claimAsync(String runnerId, RunnerMode mode, Duration wait) {
    return AskPattern.ask(
        rota.dispatcher(),
        (org.apache.pekko.actor.typed.ActorRef<WorkReply> r) ->
            new RequestWork(new ClaimSpec(runnerId, mode, Set.of(cap), wait, 60), null, r),
        wait.plus(ASK),
        testKit.system().scheduler());
  }

  private WorkReply claim(String runnerId, RunnerMode mode) {
    return claimAsync(runnerId, mode, Duration.ZERO).toCompletableFuture().join();
  }

  private AgentEntity.Granted granted(WorkReply reply) {
    return assertInstanceOf(Assigned.class, reply).granted();
  }

  private void complete(AgentEntity.Granted g) {
    String agentId = dev.rota.core.model.Ids.agentOf(g.lease().leaseId()).orElseThrow();
    assertInstanceOf(
        AgentEntity.Done.class,
        ask(
            agentId,
            r -> new AgentEntity.Complete(g.lease().leaseId(), g.lease().runnerId(), null, r)));
  }

  private String agentOf(AgentEntity.Granted g) {
    return dev.rota.core.model.Ids.agentOf(g.lease().leaseId()).orElseThrow();
  }

  @Test
  void followsTheAdr011WalkThrough() {
    // Each step waits out the coordination window (decision 26): a claim made the instant an
    // agent registered may be ranked before its coordinator has published it.
    String c = register("C");
    assertEquals(c, agentOf(completeAfterWindow(claim("r1", RunnerMode.EXPLORATION))));
    String b = register("B");
    assertEquals(b, agentOf(completeAfterWindow(claimAfterWindow("r1", RunnerMode.EXPLORATION))));
    String a = register("A");
    assertEquals(a, agentOf(completeAfterWindow(claimAfterWindow("r1", RunnerMode.EXPLORATION))));
    notify(a, 3);
    pause(WINDOW);

    AgentEntity.Granted first = granted(claim("runner-1", RunnerMode.HYBRID));
    assertEquals(a, agentOf(first));
    assertEquals(ActivationKind.INBOX, first.lease().kind());
    assertEquals(3, first.notifications().size());

    AgentEntity.Granted second = granted(claim("runner-2", RunnerMode.HYBRID));
    assertEquals(c, agentOf(second));
    assertEquals(ActivationKind.EXPLORATION, second.lease().kind());

    complete(first);
    AgentEntity.Granted third = granted(claim("runner-1", RunnerMode.HYBRID));
    assertEquals(b, agentOf(third));
  }

  /** Comfortably longer than the coordination window on a loaded machine. */
  private static final Duration WINDOW = Duration.ofMillis(300);

  private static void pause(Duration d) {
    try {
      Thread.sleep(d.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private WorkReply claimAfterWindow(String runnerId, RunnerMode mode) {
    pause(WINDOW);
    return claim(runnerId, mode);
  }

  private AgentEntity.Granted completeAfterWindow(WorkReply reply) {
    AgentEntity.Granted g = granted(reply);
    complete(g);
    return g;
  }

  @Test
  void ordersInboxByUnreadCount() {
    String x = register("x");
    String y = register("y");
    String z = register("z");
    notify(x, 1);
    notify(y, 3);
    notify(z, 2);
    // The counts reach the coordinators' index within the coordination window (decision 26).
    pause(WINDOW);
    List<String> order = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      order.add(agentOf(granted(claim("r" + i, RunnerMode.NOTIFICATION))));
    }
    assertEquals(List.of(y, z, x), order);
    assertInstanceOf(NoWork.class, claim("r9", RunnerMode.NOTIFICATION));
  }

  @Test
  void notificationArrivingMidActivationStaysUnreadAndMakesAgentEligibleAgain() {
    String a = register("a");
    notify(a, 2);
    AgentEntity.Granted g = granted(claim("r1", RunnerMode.NOTIFICATION));
    assertEquals(2, g.notifications().size());
    notify(a, 1);
    assertInstanceOf(NoWork.class, claim("r2", RunnerMode.NOTIFICATION));
    complete(g);
    AgentEntity.Granted again = granted(claim("r2", RunnerMode.NOTIFICATION));
    assertEquals(a, agentOf(again));
    assertEquals(1, again.notifications().size());
  }

  @Test
  void modesSeparateInboxAndExplorationWork() {
    String quiet = register("quiet");
    String busy = register("busy");
    notify(busy, 1);
    pause(WINDOW);
    assertEquals(quiet, agentOf(granted(claim("e1", RunnerMode.EXPLORATION))));
    assertInstanceOf(NoWork.class, claim("e2", RunnerMode.EXPLORATION));
    assertEquals(busy, agentOf(granted(claim("n1", RunnerMode.NOTIFICATION))));
    assertInstanceOf(NoWork.class, claim("n2", RunnerMode.NOTIFICATION));
  }

  @Test
  void runnerWithoutRequiredCapabilityGetsNothing() {
    register("needs");
    WorkReply reply =
        AskPattern.<Dispatcher.Command, WorkReply>ask(
                rota.dispatcher(),
                r ->
                    new RequestWork(
                        new ClaimSpec("r1", RunnerMode.HYBRID, Set.of("other"), Duration.ZERO, 60),
                        null,
                        r),
                ASK,
                testKit.system().scheduler())
            .toCompletableFuture()
            .join();
    assertFalse(
        reply instanceof Assigned a && agentOf(a.granted()).startsWith(cap),
        "an agent requiring " + cap + " went to a runner without it");
  }

  @Test
  void skipsAgentWithinMinActivationInterval() {
    register("slow", 3600L);
    complete(granted(claim("r1", RunnerMode.EXPLORATION)));
    assertInstanceOf(NoWork.class, claim("r1", RunnerMode.EXPLORATION));
  }

  @Test
  void longWaitingNotificationJumpsTheLine() throws Exception {
    String patient = register("patient");
    notify(patient, 1);
    Thread.sleep(3500); // past rota.scheduling.inbox-max-wait (3 s here): the notification waited
    String loud = register("loud");
    notify(loud, 3);
    assertEquals(patient, agentOf(granted(claim("r1", RunnerMode.NOTIFICATION))));
    assertEquals(loud, agentOf(granted(claim("r2", RunnerMode.NOTIFICATION))));
  }

  @Test
  void longPollWakesAsSoonAsWorkArrives() {
    String a = register("a");
    complete(granted(claim("r0", RunnerMode.EXPLORATION)));
    long start = System.nanoTime();
    CompletableFuture<WorkReply> waiting =
        claimAsync("r1", RunnerMode.NOTIFICATION, Duration.ofSeconds(30)).toCompletableFuture();
    testKit.system().scheduler();
    assertFalse(waiting.isDone());
    try {
      Thread.sleep(300); // the poll waits with nothing to take before the work arrives
    } catch (InterruptedException e) {
      throw new AssertionError(e);
    }
    long notified = System.nanoTime();
    notify(a, 1);
    AgentEntity.Granted g = granted(waiting.join());
    long wokeMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - notified);
    assertEquals(a, agentOf(g));
    // Far below the 30 s wait: the parked request was woken by the change, not by its deadline.
    assertTrue(System.nanoTime() - start < Duration.ofSeconds(20).toNanos());
    org.slf4j.LoggerFactory.getLogger(getClass()).info("long poll woke {} ms after notify", wokeMs);
  }

  @Test
  void pauseAnswersPausedUntilResume() {
    register("p");
    CompletableFuture<WorkReply> parked =
        claimAsync("r1", RunnerMode.NOTIFICATION, Duration.ofSeconds(30)).toCompletableFuture();
    setPaused(true);
    assertInstanceOf(WorkProtocol.Paused.class, parked.join());
    testKit
        .createTestProbe()
        .awaitAssert(
            () -> assertInstanceOf(WorkProtocol.Paused.class, claim("r2", RunnerMode.HYBRID)));
    setPaused(false);
    testKit
        .createTestProbe()
        .awaitAssert(() -> assertInstanceOf(Assigned.class, claim("r2", RunnerMode.HYBRID)));
  }

  private void setPaused(boolean paused) {
    SystemControl.PauseState state =
        AskPattern.<SystemControl.Command, SystemControl.PauseState>ask(
                rota.systemControl(),
                r -> new SystemControl.SetPaused(paused, r),
                ASK,
                testKit.system().scheduler())
            .toCompletableFuture()
            .join();
    assertEquals(paused, state.paused());
  }

  @Test
  void neverLeasesAnAgentTwiceAtOnce() {
    List<String> agents = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      agents.add(register("hot" + i));
    }
    Map<String, String> holders = new ConcurrentHashMap<>();
    AtomicInteger grants = new AtomicInteger();
    List<String> violations = java.util.Collections.synchronizedList(new ArrayList<>());
    List<CompletableFuture<Void>> loops = new ArrayList<>();
    for (int r = 0; r < 12; r++) {
      String runner = "runner-" + r;
      loops.add(
          CompletableFuture.runAsync(
              () -> {
                for (int i = 0; i < 15; i++) {
                  notify(agents.get(i % agents.size()), 1);
                  WorkReply reply = claim(runner, RunnerMode.HYBRID);
                  if (reply instanceof Assigned assigned) {
                    String agent = agentOf(assigned.granted());
                    String previous = holders.putIfAbsent(agent, runner);
                    if (previous != null) {
                      violations.add(agent + " held by " + previous + " and " + runner);
                    }
                    grants.incrementAndGet();
                    holders.remove(agent, runner);
                    complete(assigned.granted());
                  }
                }
              }));
    }
    loops.forEach(CompletableFuture::join);
    assertEquals(List.of(), violations);
    assertTrue(grants.get() > 20, "only " + grants.get() + " grants");
  }

  @Test
  void explorationIsFairAcrossAgents() {
    List<String> agents = new ArrayList<>();
    for (int i = 0; i < 30; i++) {
      agents.add(register("f" + i));
    }
    Map<String, Integer> counts = new ConcurrentHashMap<>();
    List<CompletableFuture<Void>> runners = new ArrayList<>();
    for (int r = 0; r < 4; r++) {
      String runner = "explorer-" + r;
      runners.add(
          CompletableFuture.runAsync(
              () -> {
                for (int i = 0; i < 45; i++) {
                  WorkReply reply = claim(runner, RunnerMode.EXPLORATION);
                  if (reply instanceof Assigned a) {
                    counts.merge(agentOf(a.granted()), 1, Integer::sum);
                    complete(a.granted());
                  }
                }
              }));
    }
    runners.forEach(CompletableFuture::join);
    Map<String, Integer> all = new HashMap<>();
    agents.forEach(a -> all.put(a, counts.getOrDefault(a, 0)));
    int min = all.values().stream().mapToInt(Integer::intValue).min().orElseThrow();
    int max = all.values().stream().mapToInt(Integer::intValue).max().orElseThrow();
    assertTrue(max - min <= 2, "activation counts spread " + min + ".." + max + ": " + all);
    assertTrue(min > 0);
  }

  @Test
  void messagesBetweenNodesSurviveSerialization() {
    String a = register("ser");
    notify(a, 1);
    AgentEntity.Granted granted = granted(claim("r1", RunnerMode.HYBRID));
    var probe = testKit.<Object>createTestProbe();
    RequestWork request =
        new RequestWork(
            new ClaimSpec("r1", RunnerMode.HYBRID, Set.of(cap), Duration.ZERO, 60),
            "node-1",
            probe.ref().narrow());
    var schedule =
        granted.agent() == null
            ? null
            : new dev.rota.core.scheduling.AgentSchedule(
                a,
                Set.of(cap),
                0,
                1,
                java.time.Instant.now(),
                null,
                Duration.ZERO,
                false,
                false,
                null);
    List<Object> messages =
        List.of(
            request,
            new Coordinator.AgentChanged(schedule, 3, true),
            new Coordinator.Refresh(probe.ref().narrow()),
            new Dispatcher.Heads(
                2,
                1_700_000_000_000L,
                5,
                List.of(
                    new dev.rota.core.scheduling.HeadsBoard.GroupHeads(
                        Set.of(cap),
                        List.of(new dev.rota.core.scheduling.HeadsBoard.Head(schedule, 3)),
                        List.of(new dev.rota.core.scheduling.HeadsBoard.Head(schedule, 3)),
                        true,
                        List.of(),
                        false))),
            new Assigned(granted),
            new NoWork(),
            new WorkProtocol.Paused(),
            new Dispatcher.GetRunners(probe.ref().narrow()));
    for (Object message : messages) {
      assertEquals(message, testKit.serializationTestKit().verifySerialization(message, true));
    }
  }
}
