package dev.rota.server;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import dev.rota.cluster.system.SessionLimits;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * Typed view of the {@code rota.*} keys of a loaded configuration (see {@link RotaConfig}); the
 * keys are documented in place in the {@code .conf} files and in docs/configuration.md.
 */
public record RotaSettings(
    Path dataDir,
    HttpSettings http,
    ManagementSettings management,
    ClusterSettings cluster,
    DbSettings db) {

  /** {@code rota.http.*}. */
  public record HttpSettings(
      String interfaceName, int port, long maxBodyBytes, Duration terminationDeadline) {}

  /** {@code rota.management.*}. */
  public record ManagementSettings(String hostname, int port) {}

  /**
   * {@code rota.cluster.*}; {@code seedNodes} is the effective {@code pekko.cluster.seed-nodes}.
   */
  public record ClusterSettings(String host, int port, List<String> seedNodes, boolean bootstrap) {
    /** No seed nodes and no bootstrap: this node forms a cluster of its own. */
    public boolean joinsSelf() {
      return seedNodes.isEmpty() && !bootstrap;
    }
  }

  /** {@code rota.db.*}; {@code password} is null when none is configured. */
  public record DbSettings(
      DatabaseDialect dialect,
      String driver,
      String url,
      String user,
      String password,
      int maxPoolSize,
      Duration connectionTimeout,
      SessionLimits session) {

    /** The URL with any {@code password=} parameter blanked, for logs and error messages. */
    public String displayUrl() {
      return url.replaceAll("(?i)(password=)[^&;]*", "$1***");
    }

    @Override
    public String toString() {
      return "DbSettings[dialect=" + dialect + ", url=" + displayUrl() + ", user=" + user + "]";
    }
  }

  /**
   * Reads the settings and checks that the database settings agree with each other.
   *
   * @throws StartupException naming the missing, malformed or contradictory key
   */
  public static RotaSettings from(Config config) {
    try {
      return new RotaSettings(
          Path.of(config.getString("rota.data-dir")),
          new HttpSettings(
              config.getString("rota.http.interface"),
              config.getInt("rota.http.port"),
              config.getBytes("rota.http.max-body-bytes"),
              config.getDuration("rota.http.termination-deadline")),
          new ManagementSettings(
              config.getString("rota.management.hostname"), config.getInt("rota.management.port")),
          new ClusterSettings(
              config.getString("rota.cluster.host"),
              config.getInt("rota.cluster.port"),
              config.getStringList("pekko.cluster.seed-nodes"),
              config.getBoolean("rota.cluster.bootstrap")),
          dbSettings(config));
    } catch (ConfigException e) {
      throw new StartupException("invalid configuration: " + e.getMessage(), e);
    }
  }

  private static DbSettings dbSettings(Config config) {
    DatabaseDialect dialect = DatabaseDialect.fromConfigName(config.getString("rota.db.dialect"));
    requireAgreement(
        config, "pekko-persistence-jdbc.shared-databases.slick.profile", dialect.slickProfile());
    return new DbSettings(
        dialect,
        config.getString("rota.db.driver"),
        config.getString("rota.db.url"),
        config.getString("rota.db.user"),
        config.getIsNull("rota.db.password") ? null : config.getString("rota.db.password"),
        config.getInt("rota.db.max-pool-size"),
        config.getDuration("rota.db.connection-timeout"),
        SessionLimits.from(config));
  }

  private static void requireAgreement(Config config, String key, String expected) {
    String actual = config.getString(key);
    if (!actual.equals(expected)) {
      throw new StartupException(
          key
              + " is '"
              + actual
              + "' but rota.db.dialect needs '"
              + expected
              + "' (use config/postgres.conf for PostgreSQL)");
    }
  }
}
