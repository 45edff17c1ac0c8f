package dev.rota.server;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.rota.cluster.system.SessionLimits;
import dev.rota.server.RotaSettings.DbSettings;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Properties;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.FlywayException;

/**
 * The node's connection pool for its own SQL (read-model queries, the rescuer's and the catch-up's
 * SQL) and the schema migrations. The persistence plugin keeps its own Slick pool on the same
 * database (persistence.conf).
 *
 * <p>{@link #open} fails fast with a one-line {@link StartupException} when the database cannot be
 * reached, so a misconfigured node stops at once instead of retrying in the background.
 */
public final class Database implements AutoCloseable {
  private final DbSettings settings;
  private final HikariDataSource dataSource;

  private Database(DbSettings settings, HikariDataSource dataSource) {
    this.settings = settings;
    this.dataSource = dataSource;
  }

  /**
   * Checks that the database answers, then opens the pool.
   *
   * @throws StartupException if the database is unreachable or refuses the credentials
   */
  public static Database open(DbSettings settings) {
    loadDriver(settings);
    requireReachable(settings);
    HikariConfig hikari = new HikariConfig();
    hikari.setPoolName("rota-db");
    hikari.setDriverClassName(settings.driver());
    hikari.setJdbcUrl(settings.url());
    hikari.setUsername(settings.user());
    if (settings.password() != null) {
      hikari.setPassword(settings.password());
    }
    hikari.setMaximumPoolSize(settings.maxPoolSize());
    hikari.setConnectionTimeout(settings.connectionTimeout().toMillis());
    if (SessionLimits.appliesTo(settings.url())) {
      hikari.setDataSourceProperties(settings.session().asProperties());
    }
    try {
      return new Database(settings, new HikariDataSource(hikari));
    } catch (RuntimeException e) {
      throw unreachable(settings, e);
    }
  }

  /**
   * Brings the schema up to date with the migrations of this database's dialect. Migrations already
   * applied (Flyway's history table) are skipped, so this is a no-op on a restart.
   *
   * @return how many migrations ran now
   * @throws StartupException if a migration fails or the history does not match the migrations
   */
  public int migrate() {
    try {
      return Flyway.configure()
          .dataSource(dataSource)
          .locations(settings.dialect().migrationsLocation())
          .load()
          .migrate()
          .migrationsExecuted;
    } catch (FlywayException e) {
      throw new StartupException(
          "migrating database " + settings.displayUrl() + " failed: " + Failures.firstLine(e), e);
    }
  }

  /**
   * Records {@code value} as the database's {@code key} if none is recorded yet, and otherwise
   * requires the recorded one: for settings a store cannot change once written ({@code
   * rota.partitions}). Nodes starting together agree on the first one recorded.
   *
   * @throws StartupException naming both values when the database holds another one
   */
  public void requireSetting(String key, String value) {
    try (Connection connection = dataSource.getConnection()) {
      String recorded = recordedSetting(connection, key);
      if (recorded == null) {
        try (PreparedStatement insert =
            connection.prepareStatement(
                "insert into rota_setting (name, setting_value) values (?, ?)")) {
          insert.setString(1, key);
          insert.setString(2, value);
          insert.executeUpdate();
          return;
        } catch (SQLException e) {
          // Another node recorded it meanwhile: that one counts.
          recorded = recordedSetting(connection, key);
          if (recorded == null) {
            throw e;
          }
        }
      }
      if (!recorded.equals(value)) {
        throw new StartupException(
            key
                + " is "
                + value
                + " but database "
                + settings.displayUrl()
                + " was written with "
                + recorded
                + ", and it cannot change while the database holds a journal: set "
                + key
                + " = "
                + recorded);
      }
    } catch (SQLException e) {
      throw new StartupException(
          "reading "
              + key
              + " from database "
              + settings.displayUrl()
              + " failed: "
              + Failures.firstLine(e),
          e);
    }
  }

  private static String recordedSetting(Connection connection, String key) throws SQLException {
    try (PreparedStatement select =
        connection.prepareStatement("select setting_value from rota_setting where name = ?")) {
      select.setString(1, key);
      try (ResultSet row = select.executeQuery()) {
        return row.next() ? row.getString(1) : null;
      }
    }
  }

  /** The pool; for the read model and other SQL of the node. */
  public DataSource dataSource() {
    return dataSource;
  }

  public DbSettings settings() {
    return settings;
  }

  /** The URL without credentials and the dialect, for logs. */
  public String describe() {
    return settings.displayUrl() + " (" + settings.dialect().configName() + ")";
  }

  /** Closes the pool; further calls do nothing. */
  @Override
  public void close() {
    dataSource.close();
  }

  private static void loadDriver(DbSettings settings) {
    try {
      Class.forName(settings.driver());
    } catch (ClassNotFoundException e) {
      throw new StartupException(
          "JDBC driver " + settings.driver() + " (rota.db.driver) is not on the classpath", e);
    }
  }

  private static void requireReachable(DbSettings settings) {
    Properties credentials = new Properties();
    credentials.setProperty("user", settings.user());
    if (settings.password() != null) {
      credentials.setProperty("password", settings.password());
    }
    DriverManager.setLoginTimeout((int) Math.max(1, settings.connectionTimeout().toSeconds()));
    try (Connection connection = DriverManager.getConnection(settings.url(), credentials)) {
      connection.isValid((int) Math.max(1, settings.connectionTimeout().toSeconds()));
    } catch (SQLException e) {
      throw unreachable(settings, e);
    }
  }

  private static StartupException unreachable(DbSettings settings, Exception e) {
    // A driver's own SQLException says the most (host, port, what failed); wrappers say less.
    String reason = e instanceof SQLException ? Failures.firstLine(e) : Failures.rootMessage(e);
    return new StartupException(
        "database " + settings.displayUrl() + " is unreachable: " + reason, e);
  }
}
