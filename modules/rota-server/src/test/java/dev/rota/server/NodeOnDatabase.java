package dev.rota.server;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.rota.server.testing.TestDatabase;
import java.io.File;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;

/**
 * A whole node on a database of its own, started once for a test class and stopped after it;
 * subclasses choose the database and the node's configuration ({@link #h2Config} and {@link
 * #postgresConfig} load it the way the README and the PostgreSQL overlay do).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class NodeOnDatabase {
  protected TestDatabase database;
  protected RotaNode node;

  abstract TestDatabase newDatabase();

  /** The fully loaded configuration of a node on {@code database}. */
  abstract Config nodeConfig(TestDatabase database);

  @BeforeAll
  void startNode() {
    database = newDatabase();
    node = RotaNode.startWith(nodeConfig(database));
  }

  @AfterAll
  void stopNode() {
    try {
      if (node != null) {
        node.stop();
      }
    } finally {
      database.close();
    }
  }

  /** A test node ({@link RotaNodeContract#TEST_NODE} under {@code extra}) on an H2 database. */
  static Config h2Config(Config extra, TestDatabase database) {
    return RotaConfig.load(
        extra.withFallback(RotaNodeContract.TEST_NODE).withFallback(database.config()), Map.of());
  }

  /** The same on PostgreSQL, configured as an operator would: postgres.conf and ROTA_DB_*. */
  static Config postgresConfig(Config extra, TestDatabase database) {
    Config overlay =
        ConfigFactory.parseFile(
            new File(RotaConfigTest.OVERLAYS.resolve("postgres.conf").toString()));
    return RotaConfig.load(
        extra.withFallback(RotaNodeContract.TEST_NODE).withFallback(overlay),
        Map.of(
            "ROTA_DB_URL", database.settings().url(),
            "ROTA_DB_USER", database.settings().user()));
  }
}
