package dev.rota.server;

import com.typesafe.config.Config;
import dev.rota.server.testing.Databases;
import dev.rota.server.testing.TestDatabase;
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
      return h2Config(LIMITS, database);
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
      return postgresConfig(LIMITS, database);
    }
  }
}
