package dev.rota.server.testing;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.rota.server.Database;
import dev.rota.server.RotaConfig;
import dev.rota.server.RotaSettings;
import dev.rota.server.RotaSettings.DbSettings;
import java.util.Map;

/**
 * A database a test suite owns: an H2 file in a temporary directory or a fresh database in the
 * embedded PostgreSQL. Created by {@link Databases}; {@link #close()} drops what it created.
 */
public final class TestDatabase implements AutoCloseable {
  private final String displayName;
  private final Config config;
  private final Runnable dropper;

  TestDatabase(String displayName, Config config, Runnable dropper) {
    this.displayName = displayName;
    this.config = config;
    this.dropper = dropper;
  }

  /** "H2" or "PostgreSQL"; for test names and messages. */
  public String displayName() {
    return displayName;
  }

  /**
   * Config overrides that point a node at this database ({@code rota.db.*}, {@code rota.data-dir}
   * and the matching persistence-plugin and projection dialects); pass them to {@code
   * RotaNode.start}, with anything else layered on top.
   */
  public Config config() {
    return config;
  }

  /** The {@code rota.db.*} settings a node would use with {@link #config()}. */
  public DbSettings settings() {
    return RotaSettings.from(RotaConfig.load(config, Map.of())).db();
  }

  /** A pool on this database; the caller closes it. */
  public Database open() {
    return Database.open(settings());
  }

  /** A pool on this database with all migrations applied; the caller closes it. */
  public Database openMigrated() {
    Database database = open();
    database.migrate();
    return database;
  }

  @Override
  public void close() {
    dropper.run();
  }

  @Override
  public String toString() {
    return displayName;
  }

  static Config configOf(Map<String, Object> settings) {
    return ConfigFactory.parseMap(settings, "test database");
  }
}
