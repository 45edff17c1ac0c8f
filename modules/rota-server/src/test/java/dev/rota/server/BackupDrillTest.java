package dev.rota.server;

import com.typesafe.config.Config;
import dev.rota.server.testing.Databases;
import dev.rota.server.testing.PostgresTools;
import dev.rota.server.testing.TestDatabase;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;
import org.apache.pekko.actor.testkit.typed.javadsl.LogCapturingExtension;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.extension.ExtendWith;

/** The backup drill ({@link BackupDrillContract}) with each database's own backup tool. */
class BackupDrillTest {

  /** H2's online {@code BACKUP TO} a zip, restored by unpacking it into an empty data directory. */
  @Nested
  @ExtendWith(LogCapturingExtension.class)
  class OnH2 extends BackupDrillContract {
    @Override
    TestDatabase newSource() {
      return Databases.h2();
    }

    @Override
    void backUp(RotaNode node, TestDatabase source, Path backup) throws Exception {
      try (Connection c = node.dataSource().getConnection();
          Statement s = c.createStatement()) {
        s.execute("BACKUP TO '" + backup.toAbsolutePath() + "'");
      }
    }

    @Override
    TestDatabase restore(Path backup) throws IOException {
      TestDatabase restored = Databases.h2();
      Path dataDir = Path.of(restored.config().getString("rota.data-dir"));
      try (ZipInputStream zip = new ZipInputStream(Files.newInputStream(backup))) {
        for (ZipEntry entry = zip.getNextEntry(); entry != null; entry = zip.getNextEntry()) {
          Path file = dataDir.resolve(entry.getName()).normalize();
          if (!file.startsWith(dataDir)) {
            throw new IOException("entry outside the data directory: " + entry.getName());
          }
          Files.copy(zip, file);
        }
      }
      return restored;
    }

    @Override
    Config nodeConfig(Config extra, TestDatabase database) {
      return NodeOnDatabase.h2Config(extra, database);
    }
  }

  /**
   * {@code pg_dump} of the live database, restored by {@code psql} into a database of a second,
   * fresh server; both servers of the major of Debian's client tools ({@link PostgresTools}).
   */
  @Nested
  @ExtendWith(LogCapturingExtension.class)
  class OnPostgres extends BackupDrillContract {
    private final List<EmbeddedPostgres> servers = new ArrayList<>();

    @Override
    TestDatabase newSource() {
      return Databases.postgres(server());
    }

    @Override
    void backUp(RotaNode node, TestDatabase source, Path backup) {
      PostgresTools.dump(source, backup);
    }

    @Override
    TestDatabase restore(Path backup) {
      TestDatabase restored = Databases.postgres(server());
      PostgresTools.restore(backup, restored);
      return restored;
    }

    @Override
    Config nodeConfig(Config extra, TestDatabase database) {
      return NodeOnDatabase.postgresConfig(extra, database);
    }

    @Override
    void cleanUp() throws IOException {
      for (EmbeddedPostgres server : servers) {
        server.close();
      }
      servers.clear();
    }

    private EmbeddedPostgres server() {
      EmbeddedPostgres server = PostgresTools.startServer();
      servers.add(server);
      return server;
    }
  }
}
