package dev.rota.http.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.rota.cluster.agent.AgentEntity;
import dev.rota.cluster.agent.AgentEntity.Command;
import dev.rota.cluster.agent.AgentEntity.Reply;
import dev.rota.cluster.agent.AgentSettings;
import dev.rota.cluster.agent.AgentSharding;
import java.time.Duration;
import java.util.function.Function;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.cluster.MemberStatus;
import org.apache.pekko.cluster.sharding.typed.javadsl.ClusterSharding;
import org.apache.pekko.cluster.sharding.typed.javadsl.Entity;
import org.apache.pekko.cluster.sharding.typed.javadsl.EntityTypeKey;
import org.apache.pekko.cluster.typed.Cluster;
import org.apache.pekko.cluster.typed.Join;
import org.apache.pekko.persistence.testkit.PersistenceTestKitPlugin;
import org.apache.pekko.persistence.testkit.PersistenceTestKitSnapshotPlugin;

/**
 * A single-node cluster for route tests: agents sharded by the production {@code
 * AgentSharding.init}, journal and snapshots in memory (Pekko's persistence test kit), an {@link
 * InMemoryAgentDirectory} fed by every agent change, and a second entity type, {@link #SILENT},
 * whose entities never answer (for 503s). Start one per test class; it is not cheap.
 */
public final class TestCluster {
  /** Entities with the agent protocol that swallow every command. */
  public static final EntityTypeKey<Command> SILENT =
      EntityTypeKey.create(Command.class, "SilentAgent");

  private final ActorTestKit testKit;
  private final InMemoryAgentDirectory directory = new InMemoryAgentDirectory();

  private TestCluster(String name) {
    Config config =
        ConfigFactory.parseString(
                """
                    pekko.actor.provider = cluster
                    pekko.remote.artery.canonical.hostname = "127.0.0.1"
                    pekko.remote.artery.canonical.port = 0
                    pekko.cluster.jmx.multi-mbeans-in-same-jvm = on
                    pekko.loggers = ["org.apache.pekko.event.slf4j.Slf4jLogger"]
                    pekko.logging-filter = "org.apache.pekko.event.slf4j.Slf4jLoggingFilter"
                    pekko.coordinated-shutdown.exit-jvm = off
                    # Leaving the cluster can be slow on a loaded machine.
                    pekko.actor.testkit.typed.system-shutdown-default = 30s
                    """)
            .withFallback(PersistenceTestKitPlugin.config())
            .withFallback(PersistenceTestKitSnapshotPlugin.config())
            .withFallback(ConfigFactory.load());
    this.testKit = ActorTestKit.create(name, config);
    ActorSystem<?> system = testKit.system();
    AgentSharding.init(system, AgentSettings.from(config), directory);
    ClusterSharding.get(system).init(Entity.of(SILENT, ctx -> Behaviors.ignore()));
    Cluster cluster = Cluster.get(system);
    cluster.manager().tell(Join.create(cluster.selfMember().address()));
    testKit
        .createTestProbe()
        .awaitAssert(
            Duration.ofSeconds(10),
            () -> {
              assertEquals(MemberStatus.up(), cluster.selfMember().status());
              return null;
            });
  }

  public static TestCluster start(String name) {
    return new TestCluster(name);
  }

  public ActorSystem<?> system() {
    return testKit.system();
  }

  public Config config() {
    return testKit.system().settings().config();
  }

  public InMemoryAgentDirectory directory() {
    return directory;
  }

  /** Asks an agent directly through sharding, as the coordinator would (e.g. to lease it). */
  public Reply ask(String agentId, Function<ActorRef<Reply>, Command> command) {
    return ClusterSharding.get(system())
        .entityRefFor(AgentEntity.ENTITY_TYPE_KEY, agentId)
        .<Reply>ask(command::apply, Duration.ofSeconds(5))
        .toCompletableFuture()
        .join();
  }

  public void shutdown() {
    testKit.shutdownTestKit();
  }
}
