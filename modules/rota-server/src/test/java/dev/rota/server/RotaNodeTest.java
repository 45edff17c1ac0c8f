package dev.rota.server;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.rota.server.testing.Databases;
import dev.rota.server.testing.TestDatabase;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.pekko.actor.testkit.typed.javadsl.LogCapturingExtension;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(LogCapturingExtension.class)
class RotaNodeTest {

  private static Path createTempDirectory() {
    try {
      return Files.createTempDirectory("rota-node-test");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void deleteRecursively(Path dir) {
    try (Stream<Path> paths = Files.walk(dir)) {
      paths.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Nested
  @DisplayName("Node on H2")
  class OnH2 extends RotaNodeContract {
    private final Path dataDir = createTempDirectory();

    @Override
    Config nodeConfig() {
      return RotaConfig.load(FREE_PORTS.withFallback(Databases.h2(dataDir).config()), Map.of());
    }

    @Override
    void dropDatabase() {
      deleteRecursively(dataDir);
    }
  }

  /** Configured the way an operator would: the postgres.conf overlay and ROTA_DB_* variables. */
  @Nested
  @DisplayName("Node on PostgreSQL")
  class OnPostgres extends RotaNodeContract {
    private final TestDatabase database = Databases.postgres();

    @Override
    Config nodeConfig() {
      Config overlay =
          ConfigFactory.parseFile(
              new File(RotaConfigTest.OVERLAYS.resolve("postgres.conf").toString()));
      return RotaConfig.load(
          FREE_PORTS.withFallback(overlay),
          Map.of(
              "ROTA_DB_URL", database.settings().url(),
              "ROTA_DB_USER", database.settings().user()));
    }

    @Override
    void dropDatabase() {
      database.close();
    }
  }
}
