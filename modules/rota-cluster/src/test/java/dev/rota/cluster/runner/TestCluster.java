package dev.rota.cluster.runner;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.rota.cluster.agent.AgentChangeListener;
import dev.rota.cluster.agent.AgentEntity;
import dev.rota.cluster.agent.AgentSettings;
import dev.rota.cluster.assign.WorkProtocol.RequestWork;
import dev.rota.core.model.AgentConfigPatch;
import dev.rota.core.model.AgentState;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
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
    AgentEntity.init(kit.system(), AGENT_SETTINGS, listener);
    return kit;
  }

  static RunnerSettings runnerSettings(ActorTestKit kit, String overrides) {
    return RunnerSettings.from(
        ConfigFactory.parseString(overrides).withFallback(kit.system().settings().config()));
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
    var reply = ask(kit, agentId, r -> new AgentEntity.Register(patch, r));
    return ((AgentEntity.AgentDetails) reply).state();
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
    return ((AgentEntity.AgentDetails) ask(kit, agentId, AgentEntity.Get::new)).state();
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

  static boolean historyHas(AgentState state, String type) {
    return state.history().stream().anyMatch(h -> h.type().equals(type));
  }
}
