package dev.rota.cluster.testing;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;
import java.util.UUID;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;

/**
 * A fresh database with Rota's whole schema, on H2 (in memory) or on an embedded PostgreSQL 16, for
 * suites that run the same tests on both. The schema is built the way production builds it as far
 * does: Flyway applies this module's migrations ({@code db/migration/<dialect>}).
 *
 * <p>{@link #pekkoConfig()} points the journal, snapshot store and read journal at it. One embedded
 * PostgreSQL serves the whole JVM; each {@link #postgres()} gets its own database.
 */
public final class TestDatabase implements AutoCloseable {

  /** The databases Rota supports; the name picks DDL and migration folders. */
  public enum Dialect {
    H2("org.h2.Driver", "slick.jdbc.H2Profile$"),
    POSTGRES("org.postgresql.Driver", "slick.jdbc.PostgresProfile$");

    final String driver;
    final String slickProfile;

    Dialect(String driver, String slickProfile) {
      this.driver = driver;
      this.slickProfile = slickProfile;
    }

    public String folder() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  private static EmbeddedPostgres postgres;

  private final Dialect dialect;
  private final String url;
  private final String user;
  private final HikariDataSource dataSource;

  private TestDatabase(Dialect dialect, String url, String user) {
    this.dialect = dialect;
    this.url = url;
    this.user = user;
    HikariConfig hikari = new HikariConfig();
    hikari.setPoolName("test-db");
    hikari.setDriverClassName(dialect.driver);
    hikari.setJdbcUrl(url);
    hikari.setUsername(user);
    hikari.setPassword("");
    hikari.setMaximumPoolSize(8);
    this.dataSource = new HikariDataSource(hikari);
  }

  /** An H2 in-memory database in native mode, kept until {@link #close()}. */
  /** Whether a text column holds NUL (H2 does; PostgreSQL refuses it). */
  public boolean holdsNul() {
    return dialect == Dialect.H2;
  }

  public static TestDatabase h2() {
    String name = "rota-" + UUID.randomUUID();
    TestDatabase db =
        new TestDatabase(
            Dialect.H2, "jdbc:h2:mem:" + name + ";DB_CLOSE_DELAY=-1;DATABASE_TO_UPPER=false", "sa");
    db.createSchema();
    return db;
  }

  /** A new database on the JVM's embedded PostgreSQL (started on first use, about 3 s). */
  public static TestDatabase postgres() {
    TestDatabase db = postgresWithoutSchema();
    db.createSchema();
    return db;
  }

  /**
   * A new PostgreSQL database migrated up to {@code version} only, as a database written by an
   * older Rota would be; {@link #migrate()} applies the rest.
   */
  public static TestDatabase postgresAt(String version) {
    TestDatabase db = postgresWithoutSchema();
    Flyway.configure()
        .dataSource(db.dataSource)
        .locations("classpath:db/migration/" + db.dialect.folder())
        .target(version)
        .load()
        .migrate();
    return db;
  }

  /** Applies the migrations not applied yet; returns how many. */
  public int migrate() {
    return Flyway.configure()
        .dataSource(dataSource)
        .locations("classpath:db/migration/" + dialect.folder())
        .load()
        .migrate()
        .migrationsExecuted;
  }

  /** Migrates up to {@code version} (included); the number of migrations run. */
  public int migrateTo(String version) {
    return Flyway.configure()
        .dataSource(dataSource)
        .locations("classpath:db/migration/" + dialect.folder())
        .target(version)
        .load()
        .migrate()
        .migrationsExecuted;
  }

  private static TestDatabase postgresWithoutSchema() {
    EmbeddedPostgres server = embeddedPostgres();
    String name = "rota_" + UUID.randomUUID().toString().replace("-", "");
    try (Connection c = server.getPostgresDatabase().getConnection();
        Statement s = c.createStatement()) {
      s.execute("create database " + name);
    } catch (SQLException e) {
      throw new IllegalStateException("cannot create test database", e);
    }
    return new TestDatabase(Dialect.POSTGRES, server.getJdbcUrl("postgres", name), "postgres");
  }

  public static TestDatabase of(Dialect dialect) {
    return dialect == Dialect.H2 ? h2() : postgres();
  }

  private static synchronized EmbeddedPostgres embeddedPostgres() {
    if (postgres == null) {
      try {
        postgres = EmbeddedPostgres.start();
      } catch (IOException e) {
        throw new UncheckedIOException("cannot start embedded PostgreSQL", e);
      }
      EmbeddedPostgres started = postgres;
      Runtime.getRuntime()
          .addShutdownHook(
              new Thread(
                  () -> {
                    try {
                      started.close();
                    } catch (IOException e) {
                      // the JVM is going away anyway
                    }
                  }));
    }
    return postgres;
  }

  public Dialect dialect() {
    return dialect;
  }

  public DataSource dataSource() {
    return dataSource;
  }

  /**
   * Rota's journal, and the snapshot store and read journal through one shared Slick pool, on this
   * database; the read journal polling every 100 ms through Rota's tag-index DAO (as the server
   * configures it).
   */
  public Config pekkoConfig() {
    return ConfigFactory.parseString(
        String.join(
            "\n",
            "pekko.persistence.journal.plugin = rota-journal",
            "rota-journal {",
            "  class = dev.rota.cluster.journal.RotaJournal",
            "  plugin-dispatcher = pekko.actor.default-dispatcher",
            "  writers = 2",
            "  readers = 2",
            "  max-batch-rows = 1000",
            "  db {",
            "    driver = \"" + dialect.driver + "\"",
            "    url = \"" + url + "\"",
            "    user = " + user,
            "    password = \"\"",
            "    connection-timeout = 10s",
            "  }",
            "}",
            "pekko.persistence.snapshot-store.plugin = jdbc-snapshot-store",
            "jdbc-journal.use-shared-db = slick",
            "jdbc-snapshot-store.use-shared-db = slick",
            "jdbc-read-journal.use-shared-db = slick",
            "jdbc-read-journal.dao = dev.rota.cluster.readmodel.TagIndexReadJournalDao",
            "jdbc-read-journal.refresh-interval = 100ms",
            "jdbc-read-journal.journal-sequence-retrieval.query-delay = 100ms",
            "pekko-persistence-jdbc.shared-databases.slick {",
            "  profile = \"" + dialect.slickProfile + "\"",
            "  db {",
            "    connectionPool = HikariCP",
            "    url = \"" + url + "\"",
            "    user = " + user,
            "    password = \"\"",
            "    driver = \"" + dialect.driver + "\"",
            "    numThreads = 4",
            "    maxConnections = 4",
            "    minConnections = 1",
            "  }",
            "}"));
  }

  /** Empties the read model (not the journal), so each test starts from no agents. */
  public void clearReadModel() {
    execute(
        "delete from dead_letter; delete from agent_schedule; delete from rota_counter;"
            + " delete from rota_skipped_event; delete from agent_outbox_after_delete");
  }

  /** Runs statements separated by semicolons; for assertions and set-up. */
  public void execute(String sql) {
    try (Connection c = dataSource.getConnection();
        Statement s = c.createStatement()) {
      for (String statement : statements(sql)) {
        s.execute(statement);
      }
    } catch (SQLException e) {
      throw new IllegalStateException("test SQL failed: " + sql, e);
    }
  }

  /** The first column of the first row as a long; null when there is no row. */
  public Long queryLong(String sql, Object... parameters) {
    try (Connection c = dataSource.getConnection();
        java.sql.PreparedStatement s = c.prepareStatement(sql)) {
      for (int i = 0; i < parameters.length; i++) {
        s.setObject(i + 1, parameters[i]);
      }
      try (java.sql.ResultSet rs = s.executeQuery()) {
        return rs.next() ? rs.getLong(1) : null;
      }
    } catch (SQLException e) {
      throw new IllegalStateException("test query failed: " + sql, e);
    }
  }

  private void createSchema() {
    String folder = dialect.folder();
    // The same migrations production runs at start-up.
    Flyway.configure()
        .dataSource(dataSource)
        .locations("classpath:db/migration/" + folder)
        .load()
        .migrate();
  }

  /** Splits a script at semicolons after dropping {@code --} comments (the scripts have no $$). */
  private static java.util.List<String> statements(String script) {
    StringBuilder code = new StringBuilder();
    for (String line : script.split("\n")) {
      int comment = line.indexOf("--");
      code.append(comment >= 0 ? line.substring(0, comment) : line).append('\n');
    }
    return java.util.Arrays.stream(code.toString().split(";"))
        .map(String::strip)
        .filter(s -> !s.isEmpty())
        .toList();
  }

  @Override
  public void close() {
    dataSource.close();
    if (dialect == Dialect.H2) {
      // DB_CLOSE_DELAY=-1 keeps an in-memory database until it is shut down explicitly.
      try (Connection c = java.sql.DriverManager.getConnection(url, user, "");
          Statement s = c.createStatement()) {
        s.execute("shutdown");
      } catch (SQLException e) {
        // already gone
      }
    }
  }
}
