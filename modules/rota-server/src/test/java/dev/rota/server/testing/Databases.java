package dev.rota.server.testing;

import com.typesafe.config.Config;
import dev.rota.server.DatabaseDialect;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Stream;

/**
 * The databases Rota's suites run on (STYLE §14: the same tests on H2 and on a real PostgreSQL).
 * Typical use is one abstract contract class with a {@code @Nested} subclass per database:
 *
 * <pre>{@code
 * abstract class MigrationsContract {
 *   abstract TestDatabase database();
 *   // test methods use database().openMigrated() ...
 * }
 * class MigrationsTest {
 *   @Nested class OnH2 extends MigrationsContract { ... Databases.h2() }
 *   @Nested class OnPostgres extends MigrationsContract { ... Databases.postgres() }
 * }
 * }</pre>
 */
public final class Databases {
  private Databases() {}

  /**
   * The embedded default: an H2 file database under {@code dataDir}, with the default URL. The
   * directory is the caller's; {@link TestDatabase#close()} leaves it.
   */
  public static TestDatabase h2(Path dataDir) {
    return new TestDatabase("H2", h2Config(dataDir), () -> {});
  }

  /** An H2 file database in a new temporary directory, deleted by {@link TestDatabase#close()}. */
  public static TestDatabase h2() {
    Path dataDir;
    try {
      dataDir = Files.createTempDirectory("rota-h2-");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return new TestDatabase("H2", h2Config(dataDir), () -> deleteRecursively(dataDir));
  }

  private static Config h2Config(Path dataDir) {
    return TestDatabase.configOf(Map.of("rota.data-dir", dataDir.toAbsolutePath().toString()));
  }

  private static void deleteRecursively(Path dir) {
    try (Stream<Path> paths = Files.walk(dir)) {
      paths.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * A new, empty database {@code rota_<random>} in the JVM's embedded PostgreSQL 16; dropped again
   * by {@link TestDatabase#close()}.
   *
   * @throws IllegalStateException if PostgreSQL cannot start (the test fails, never skips)
   */
  public static TestDatabase postgres() {
    return postgres(EmbeddedPostgresServer.get());
  }

  /** A new, empty database in {@code server} (e.g. {@link PostgresTools#startServer()}'s). */
  public static TestDatabase postgres(EmbeddedPostgres server) {
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
