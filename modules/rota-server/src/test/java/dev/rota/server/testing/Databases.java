package dev.rota.server.testing;

import dev.rota.server.DatabaseDialect;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;

/**
 * The databases Rota's suites run on (STYLE §14: the same tests on H2 and on a real PostgreSQL).
 * Typical use is one abstract contract class with a {@code @Nested} subclass per database:
 *
 * <pre>{@code
 * abstract class MigrationsContract {
 *   abstract TestDatabase database();
 *   @Test void createsTheTables() { ... database().openMigrated() ... }
 * }
 * class MigrationsTest {
 *   @Nested class OnH2 extends MigrationsContract { @TempDir Path dir; ... Databases.h2(dir) }
 *   @Nested class OnPostgres extends MigrationsContract { ... Databases.postgres() }
 * }
 * }</pre>
 */
public final class Databases {
  private Databases() {}

  /** The embedded default: an H2 file database under {@code dataDir}, with the default URL. */
  public static TestDatabase h2(Path dataDir) {
    return new TestDatabase(
        "H2",
        TestDatabase.configOf(Map.of("rota.data-dir", dataDir.toAbsolutePath().toString())),
        () -> {});
  }

  /**
   * A new, empty database {@code rota_<random>} in the JVM's embedded PostgreSQL 16; dropped again
   * by {@link TestDatabase#close()}.
   *
   * @throws IllegalStateException if PostgreSQL cannot start (the test fails, never skips)
   */
  public static TestDatabase postgres() {
    EmbeddedPostgres server = EmbeddedPostgresServer.get();
    String name = "rota_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
    execute(server, "CREATE DATABASE " + name);
    DatabaseDialect dialect = DatabaseDialect.POSTGRES;
    Map<String, Object> settings = new HashMap<>();
    settings.put("rota.db.dialect", dialect.configName());
    settings.put("rota.db.driver", "org.postgresql.Driver");
    settings.put("rota.db.url", server.getJdbcUrl("postgres", name));
    settings.put("rota.db.user", "postgres");
    settings.put("rota.db.password", "");
    settings.put("pekko-persistence-jdbc.shared-databases.slick.profile", dialect.slickProfile());
    settings.put("pekko.projection.jdbc.dialect", dialect.projectionDialect());
    return new TestDatabase(
        "PostgreSQL",
        TestDatabase.configOf(settings),
        () -> execute(server, "DROP DATABASE IF EXISTS " + name + " WITH (FORCE)"));
  }

  private static void execute(EmbeddedPostgres server, String sql) {
    try (Connection connection = server.getPostgresDatabase().getConnection();
        Statement statement = connection.createStatement()) {
      statement.execute(sql);
    } catch (SQLException e) {
      throw new IllegalStateException("embedded PostgreSQL refused: " + sql, e);
    }
  }
}
