package dev.rota.cluster.runner;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.rota.cluster.agent.AgentChangeListener;
import dev.rota.cluster.agent.AgentEntity;
import dev.rota.cluster.agent.AgentSettings;
import dev.rota.cluster.agent.AgentSharding;
import dev.rota.cluster.assign.WorkProtocol.RequestWork;
import dev.rota.core.model.ActivationKind;
import dev.rota.core.model.AgentConfig;
import dev.rota.core.model.AgentConfigPatch;
import dev.rota.core.model.AgentState;
import dev.rota.core.model.Ids;
import dev.rota.core.model.Lease;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.cluster.sharding.typed.javadsl.ClusterSharding;
import org.apache.pekko.cluster.typed.Cluster;
import org.apache.pekko.cluster.typed.Join;
import org.apache.pekko.persistence.testkit.PersistenceTestKitPlugin;
import org.apache.pekko.persistence.testkit.PersistenceTestKitSnapshotPlugin;

/**
 * A single-node cluster for runner tests: real sharding and real agent entities on the in-memory
 * journal of pekko-persistence-testkit, started through the production {@code init} methods.
 */
final class TestCluster {
  static final AgentSettings AGENT_SETTINGS =
      new AgentSettings(16, 300, Duration.ofHours(1), 100, Duration.ofMillis(200));
  private static final Duration ASK = Duration.ofSeconds(10);

  private static final String CLUSTER =
      """
      pekko.actor.provider = cluster
      pekko.remote.artery.canonical.hostname = 127.0.0.1
      pekko.remote.artery.canonical.port = 0
      pekko.cluster.jmx.multi-mbeans-in-same-jvm = on
      pekko.coordinated-shutdown.exit-jvm = off
      pekko.coordinated-shutdown.run-by-jvm-shutdown-hook = off
      pekko.cluster.run-coordinated-shutdown-when-down = off
      # Leaving the cluster and draining the runners at the end took over Pekko's 10 s once the
      # machine ran a fault suite beside the build: the test kit waits longer before failing.
      pekko.actor.testkit.typed.system-shutdown-default = 30s
      # Runners in tests ask briefly and back off briefly, so the tests stay quick.
      rota.runners.poll-wait = 2s
      rota.runners.paused-backoff = 200ms
      """;

  private TestCluster() {}

  static ActorTestKit start(String name, String config, AgentChangeListener listener) {
    Config full =
        ConfigFactory.parseString(config)
            .withFallback(ConfigFactory.parseString(CLUSTER))
            .withFallback(PersistenceTestKitPlugin.getInstance().config())
            .withFallback(PersistenceTestKitSnapshotPlugin.config())
            .withFallback(ConfigFactory.load());
    ActorTestKit kit = ActorTestKit.create(name, full);
    Cluster cluster = Cluster.get(kit.system());
    cluster.manager().tell(Join.create(cluster.selfMember().address()));
    AgentSharding.init(kit.system(), AGENT_SETTINGS, listener);
    return kit;
  }

  static RunnerSettings runnerSettings(ActorTestKit kit, String overrides) {
    // Runners are off by default on a node; these tests are about running them.
    return RunnerSettings.from(
        ConfigFactory.parseString(overrides)
            .withFallback(ConfigFactory.parseString("rota.runners.enabled = true"))
            .withFallback(kit.system().settings().config()));
  }

  /** A test dispatcher offering these agents; requests counts the runners' requests. */
  static ActorRef<Object> dispatcher(
      ActorTestKit kit, List<String> agentIds, AtomicInteger requests) {
    return kit.spawn(TestDispatcher.create(agentIds, requests));
  }

  static ActorRef<RequestWork> narrow(ActorRef<Object> dispatcher) {
    return dispatcher.narrow();
  }

  // ---- agents ----

  static AgentState register(
      ActorTestKit kit, String agentId, JsonNode metadata, List<String> capabilities) {
    var patch = new AgentConfigPatch(null, capabilities, null, null, null, null, metadata);
    ask(kit, agentId, r -> new AgentEntity.Register(patch, r));
    return state(kit, agentId);
  }

  static AgentState register(ActorTestKit kit, String agentId) {
    return register(kit, agentId, null, List.of());
  }

  static String notifyAgent(ActorTestKit kit, String agentId, String type) {
    JsonNode payload = JsonNodeFactory.instance.objectNode().put("text", "hello " + agentId);
    var reply = ask(kit, agentId, r -> new AgentEntity.Notify(type, payload, null, r));
    return ((AgentEntity.Accepted) reply).notificationId();
  }

  static AgentState state(ActorTestKit kit, String agentId) {
    return ((AgentEntity.FullState) ask(kit, agentId, AgentEntity.GetState::new)).state();
  }

  static AgentEntity.Reply ask(
      ActorTestKit kit,
      String agentId,
      Function<ActorRef<AgentEntity.Reply>, AgentEntity.Command> command) {
    try {
      return ClusterSharding.get(kit.system())
          .entityRefFor(AgentEntity.ENTITY_TYPE_KEY, agentId)
          .ask(command::apply, ASK)
          .toCompletableFuture()
          .get(ASK.toSeconds() + 1, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new AssertionError("agent " + agentId + " did not answer", e);
    }
  }

  /** One activation, start to report: what the executor made of it and what the agent became. */
  record Run(Activation activation, Outcome outcome, RunnerStatus runner, AgentState agent) {}

  /**
   * Registers the agent, gives it a notification and lets one notification-mode runner take exactly
   * one turn through the executor (it cools down for an hour after), then stops the runner.
   */
  static Run runOnce(ActorTestKit kit, String agentId, JsonNode metadata, Executor executor)
      throws InterruptedException {
    register(kit, agentId, metadata, List.of());
    notifyAgent(kit, agentId, "message");
    var recording = new RecordingExecutor(executor);
    var identity =
        new Runner.Identity(
            "test/" + agentId,
            "test",
            "test",
            dev.rota.core.model.RunnerMode.NOTIFICATION,
            Set.of());
    var runner =
        kit.spawn(
            Runner.create(
                identity,
                runnerSettings(kit, "rota.runners.cool-down = 1h"),
                recording,
                narrow(dispatcher(kit, List.of(agentId), new AtomicInteger())),
                null));
    Activation activation = recording.nextActivation(ASK);
    Outcome outcome = recording.nextOutcome(ASK);
    TestProbe<RunnerStatus> probe = kit.createTestProbe();
    RunnerStatus status =
        probe.awaitAssert(
            ASK,
            () -> {
              runner.tell(new Runner.GetStatus(probe.ref()));
              RunnerStatus s = probe.receiveMessage();
              if (s.completed() + s.failed() + s.abandoned() != 1) {
                throw new AssertionError("not reported yet: " + s);
              }
              return s;
            });
    kit.stop(runner);
    return new Run(activation, outcome, status, state(kit, agentId));
  }

  /** An activation made up here, for executors tested without an agent behind them. */
  static Activation activation(String agentId, JsonNode metadata) {
    Instant now = Instant.now();
    Lease lease =
        new Lease(
            Ids.leaseId(agentId, 1),
            "test",
            ActivationKind.INBOX,
            1,
            1,
            now,
            now.plusSeconds(60),
            60,
            List.of());
    return Activation.of(
        new AgentEntity.Granted(
            lease, List.of(), new AgentConfig(agentId, List.of(), 0, 0, 100, 3, metadata), false));
  }

  static Activation activation(String agentId) {
    return activation(agentId, null);
  }

  static boolean historyHas(AgentState state, String type) {
    return state.history().stream().anyMatch(h -> h.type().equals(type));
  }
}
