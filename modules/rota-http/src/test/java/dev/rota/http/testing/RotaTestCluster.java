package dev.rota.http.testing;

import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.rota.cluster.RotaCluster;
import dev.rota.cluster.assign.PartitionLoader;
import dev.rota.cluster.assign.WorkProtocol.RequestWork;
import dev.rota.cluster.runner.RunnerPool;
import dev.rota.cluster.runner.RunnerSettings;
import dev.rota.cluster.testing.SingleNodeCluster;
import dev.rota.cluster.testing.TestDatabase;
import dev.rota.http.AgentDirectory;
import dev.rota.http.HttpSettings;
import dev.rota.http.ReadModelAgentDirectory;
import dev.rota.http.RotaRoutes;
import java.time.Duration;
import java.util.List;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.persistence.testkit.PersistenceTestKitPlugin;
import org.apache.pekko.persistence.testkit.PersistenceTestKitSnapshotPlugin;

/**
 * A single-node cluster with all of Rota started by the production {@code RotaCluster.start}:
 * agents, coordinators, dispatcher, pause switch — either on the in-memory journal without a read
 * model ({@link #inMemory}), or on an H2 database with the read model and lease rescuer ({@link
 * #withDatabase}). It waits until every partition's coordinator is known, so no agent change is
 * pushed into the void. Start one per test class; it is not cheap.
 */
public final class RotaTestCluster {
  private static final String COMMON =
      """
      pekko.loggers = ["org.apache.pekko.event.slf4j.Slf4jLogger"]
      pekko.logging-filter = "org.apache.pekko.event.slf4j.Slf4jLoggingFilter"
      rota.partitions = 4
      """;

  private final ActorTestKit testKit;
  private final RotaCluster rota;
  private final TestDatabase database;
  private final AgentDirectory directory;

  private RotaTestCluster(String name, TestDatabase database) {
    this(name, database, "");
  }

  private RotaTestCluster(String name, TestDatabase database, String overrides) {
    this.database = database;
    Config storage =
        database == null
            ? PersistenceTestKitPlugin.config()
                .withFallback(PersistenceTestKitSnapshotPlugin.config())
            : database.pekkoConfig();
    Config config =
        ConfigFactory.parseString(overrides)
            .withFallback(ConfigFactory.parseString(COMMON))
            .withFallback(SingleNodeCluster.config())
            .withFallback(storage)
            .withFallback(ConfigFactory.load())
            .resolve();
    this.testKit = ActorTestKit.create(name, config);
    SingleNodeCluster.join(testKit.system());
    this.rota =
        database == null
            ? RotaCluster.start(testKit.system(), PartitionLoader.EMPTY)
            : RotaCluster.start(testKit.system(), database.dataSource());
    this.directory =
        database == null
            ? (tenant, order, limit, after) -> new AgentDirectory.AgentPage(List.of(), null)
            : new ReadModelAgentDirectory(database.dataSource());
    testKit
        .createTestProbe()
        .awaitAssert(
            Duration.ofSeconds(20),
            () -> {
              for (int p = 0; p < rota.coordinators().partitions(); p++) {
                assertTrue(rota.coordinators().of(p).isPresent(), "coordinator " + p);
              }
              return null;
            });
  }

  /** In-memory journal, no read model: admin views that read it answer 503. */
  public static RotaTestCluster inMemory(String name) {
    return new RotaTestCluster(name, null);
  }

  /** An H2 database behind journal and read model. */
  public static RotaTestCluster withDatabase(String name) {
    return new RotaTestCluster(name, TestDatabase.h2());
  }

  /** {@link #withDatabase(String)} with config overrides, e.g. {@code rota.pools { ... }}. */
  public static RotaTestCluster withDatabase(String name, String overrides) {
    return new RotaTestCluster(name, TestDatabase.h2(), overrides);
  }

  public ActorSystem<?> system() {
    return testKit.system();
  }

  public Config config() {
    return testKit.system().settings().config();
  }

  public RotaCluster rota() {
    return rota;
  }

  public TestDatabase database() {
    return database;
  }

  public HttpSettings settings() {
    return HttpSettings.from(config());
  }

  /** The whole API with the given settings (e.g. with tokens). */
  public RotaRoutes routes(HttpSettings settings) {
    return new RotaRoutes(rota, settings, directory);
  }

  /**
   * Starts this node's in-cluster runner pool with the given {@code rota.runners} overrides, e.g.
   * {@code rota.runners.pools = [...]}.
   */
  public void startRunnerPool(String overrides) {
    RunnerPool.init(
        system(),
        rota.dispatcher().<RequestWork>narrow(),
        RunnerSettings.from(ConfigFactory.parseString(overrides).withFallback(config())));
  }

  public void shutdown() {
    testKit.shutdownTestKit();
    if (database != null) {
      database.close();
    }
  }
}
