package dev.rota.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import java.io.File;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RotaConfigTest {
  /** The overlays shipped in the repository's config/ directory (tests run in the module dir). */
  static final Path OVERLAYS = Path.of("../../config");

  private static RotaSettings settings(Config overrides, Map<String, String> environment) {
    return RotaSettings.from(RotaConfig.load(overrides, environment));
  }

  private static Config overlay(String name) {
    return ConfigFactory.parseFile(new File(OVERLAYS.resolve(name).toString()));
  }

  @Test
  void defaultsToASingleLoopbackNodeOnEmbeddedH2() {
    RotaSettings settings = settings(ConfigFactory.empty(), Map.of());

    assertEquals("127.0.0.1", settings.http().interfaceName());
    assertEquals(8080, settings.http().port());
    assertEquals(65536, settings.http().maxBodyBytes());
    assertEquals(8558, settings.management().port());
    assertEquals("127.0.0.1", settings.cluster().host());
    assertEquals(25520, settings.cluster().port());
    assertTrue(settings.cluster().joinsSelf());
    assertEquals(DatabaseDialect.H2, settings.db().dialect());
    assertEquals(10, settings.db().maxPoolSize());
    Path dataDir = Path.of("data").toAbsolutePath();
    assertEquals(dataDir, settings.dataDir());
    assertEquals(
        "jdbc:h2:file:" + dataDir + "/rota;DATABASE_TO_UPPER=false;DB_CLOSE_ON_EXIT=FALSE",
        settings.db().url());
  }

  @Test
  void takesDeployTimeValuesFromTheEnvironment() {
    Config config =
        RotaConfig.load(
            ConfigFactory.empty(),
            Map.of(
                "ROTA_HTTP_PORT", "9090",
                "ROTA_HTTP_INTERFACE", "0.0.0.0",
                "ROTA_MANAGEMENT_PORT", "9558",
                "ROTA_CLUSTER_HOST", "10.1.2.3",
                "ROTA_CLUSTER_PORT", "25600",
                "ROTA_DATA_DIR", "/var/lib/rota",
                "ROTA_DB_USER", "app",
                "ROTA_DB_PASSWORD", "s3cret",
                "ROTA_DB_MAX_POOL_SIZE", "4"));
    RotaSettings settings = RotaSettings.from(config);

    assertEquals(9090, settings.http().port());
    assertEquals("0.0.0.0", settings.http().interfaceName());
    assertEquals(9558, settings.management().port());
    assertEquals("10.1.2.3", settings.management().hostname());
    assertEquals("10.1.2.3", config.getString("pekko.remote.artery.canonical.hostname"));
    assertEquals(25600, config.getInt("pekko.remote.artery.canonical.port"));
    assertEquals(9558, config.getInt("pekko.management.http.port"));
    assertEquals(Path.of("/var/lib/rota"), settings.dataDir());
    assertTrue(settings.db().url().startsWith("jdbc:h2:file:/var/lib/rota/rota;"));
    assertEquals("app", settings.db().user());
    assertEquals("s3cret", settings.db().password());
    assertEquals(4, settings.db().maxPoolSize());
    assertEquals(4, config.getInt("pekko-persistence-jdbc.shared-databases.slick.db.numThreads"));
  }

  @Test
  void turnsSeedNodesIntoPekkoSeedNodeAddresses() {
    Config config =
        RotaConfig.load(
            ConfigFactory.empty(),
            Map.of("ROTA_SEED_NODES", "127.0.0.1:25520, pekko://rota@127.0.0.1:25521"));

    assertEquals(
        List.of("pekko://rota@127.0.0.1:25520", "pekko://rota@127.0.0.1:25521"),
        config.getStringList("pekko.cluster.seed-nodes"));
    assertFalse(RotaSettings.from(config).cluster().joinsSelf());
  }

  @Test
  void theFirstOfSeveralSeedNodesWaitsLongerBeforeFormingACluster() {
    Map<String, String> seeds = Map.of("ROTA_SEED_NODES", "127.0.0.1:25520,127.0.0.1:25521");
    Config first =
        RotaConfig.load(ConfigFactory.empty(), with(seeds, "ROTA_CLUSTER_PORT", "25520"));
    Config second =
        RotaConfig.load(ConfigFactory.empty(), with(seeds, "ROTA_CLUSTER_PORT", "25521"));

    assertEquals(20, first.getDuration("pekko.cluster.seed-node-timeout").toSeconds());
    assertEquals(5, second.getDuration("pekko.cluster.seed-node-timeout").toSeconds());
  }

  private static Map<String, String> with(Map<String, String> base, String key, String value) {
    Map<String, String> all = new java.util.HashMap<>(base);
    all.put(key, value);
    return all;
  }

  @Test
  void refusesAMalformedSeedNode() {
    StartupException e =
        assertThrows(
            StartupException.class,
            () -> RotaConfig.load(ConfigFactory.empty(), Map.of("ROTA_SEED_NODES", "node-1")));
    assertTrue(e.getMessage().contains("'node-1'"), e.getMessage());
  }

  @Test
  void letsOverridesWinOverTheEnvironment() {
    RotaSettings settings =
        settings(
            ConfigFactory.parseMap(Map.of("rota.http.port", 0)), Map.of("ROTA_HTTP_PORT", "9090"));
    assertEquals(0, settings.http().port());
  }

  @Test
  void postgresOverlaySwitchesDriverAndPluginTogether() {
    Config config =
        RotaConfig.load(
            overlay("postgres.conf"),
            Map.of("ROTA_DB_URL", "jdbc:postgresql://db:5432/rota", "ROTA_DB_USER", "app"));
    RotaSettings settings = RotaSettings.from(config);

    assertEquals(DatabaseDialect.POSTGRES, settings.db().dialect());
    assertEquals("org.postgresql.Driver", settings.db().driver());
    assertEquals("jdbc:postgresql://db:5432/rota", settings.db().url());
    assertEquals("app", settings.db().user());
    assertNull(settings.db().password(), "a secret has no default");
    assertEquals(
        "jdbc:postgresql://db:5432/rota",
        config.getString("pekko-persistence-jdbc.shared-databases.slick.db.url"));
  }

  @Test
  void clusterNodeOverlayRunsOnPostgresAndFormsTheClusterFromSeedNodes() {
    RotaSettings settings =
        settings(
            overlay("cluster-node.conf"),
            Map.of("ROTA_SEED_NODES", "10.0.0.1:25520,10.0.0.2:25520"));

    assertEquals(DatabaseDialect.POSTGRES, settings.db().dialect());
    assertEquals(2, settings.cluster().seedNodes().size());
    assertFalse(settings.cluster().joinsSelf());
  }

  @Test
  void devOverlayIsTheEmbeddedDefault() {
    assertEquals(
        settings(ConfigFactory.empty(), Map.of()), settings(overlay("dev.conf"), Map.of()));
  }

  @Test
  void refusesADialectThatDisagreesWithThePersistencePlugin() {
    StartupException e =
        assertThrows(
            StartupException.class,
            () ->
                settings(ConfigFactory.parseMap(Map.of("rota.db.dialect", "postgres")), Map.of()));
    assertTrue(e.getMessage().contains("slick.jdbc.H2Profile$"), e.getMessage());
  }

  @Test
  void refusesAnUnknownDialect() {
    StartupException e =
        assertThrows(
            StartupException.class,
            () -> settings(ConfigFactory.parseMap(Map.of("rota.db.dialect", "mysql")), Map.of()));
    assertTrue(e.getMessage().contains("h2, postgres"), e.getMessage());
  }

  @Test
  void keepsThePasswordOutOfDisplayedSettings() {
    RotaSettings settings = settings(ConfigFactory.empty(), Map.of("ROTA_DB_PASSWORD", "s3cret"));
    assertFalse(settings.db().toString().contains("s3cret"));
    assertFalse(settings.toString().contains("s3cret"));
    assertEquals(Duration.ofSeconds(10), settings.db().connectionTimeout());
  }
}
