package dev.rota.server;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.rota.server.testing.Databases;
import dev.rota.server.testing.TestDatabase;
import org.apache.pekko.actor.testkit.typed.javadsl.LogCapturingExtension;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(LogCapturingExtension.class)
class RotaNodeTest {

  @Nested
  @DisplayName("Node on H2")
  class OnH2 extends RotaNodeContract {
    @Override
    TestDatabase newDatabase() {
      return Databases.h2();
    }

    @Override
    Config nodeConfig(TestDatabase database) {
      return h2Config(ConfigFactory.empty(), database);
    }
  }

  /** Configured the way an operator would: the postgres.conf overlay and ROTA_DB_* variables. */
  @Nested
  @DisplayName("Node on PostgreSQL")
  class OnPostgres extends RotaNodeContract {
    @Override
    TestDatabase newDatabase() {
      return Databases.postgres();
    }

    @Override
    Config nodeConfig(TestDatabase database) {
      return postgresConfig(ConfigFactory.empty(), database);
    }
  }
}
