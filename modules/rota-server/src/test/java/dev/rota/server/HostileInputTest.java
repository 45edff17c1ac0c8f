package dev.rota.server;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.rota.server.testing.Databases;
import dev.rota.server.testing.TestDatabase;
import java.io.File;
import java.util.Map;
import org.apache.pekko.actor.testkit.typed.javadsl.LogCapturingExtension;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(LogCapturingExtension.class)
class HostileInputTest {

  @Nested
  @DisplayName("Hostile input on H2")
  class OnH2 extends HostileInputContract {
    @Override
    TestDatabase newDatabase() {
      return Databases.h2();
    }

    @Override
    Config nodeConfig(TestDatabase database) {
      return RotaConfig.load(
          LIMITS.withFallback(RotaNodeContract.TEST_NODE).withFallback(database.config()),
          Map.of());
    }
  }

  @Nested
  @DisplayName("Hostile input on PostgreSQL")
  class OnPostgres extends HostileInputContract {
    @Override
    TestDatabase newDatabase() {
      return Databases.postgres();
    }

    @Override
    Config nodeConfig(TestDatabase database) {
      Config overlay =
          ConfigFactory.parseFile(
              new File(RotaConfigTest.OVERLAYS.resolve("postgres.conf").toString()));
      return RotaConfig.load(
          LIMITS.withFallback(RotaNodeContract.TEST_NODE).withFallback(overlay),
          Map.of(
              "ROTA_DB_URL", database.settings().url(),
              "ROTA_DB_USER", database.settings().user()));
    }
  }
}
