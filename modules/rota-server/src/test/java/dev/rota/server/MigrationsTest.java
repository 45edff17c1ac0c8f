package dev.rota.server;

import dev.rota.server.testing.Databases;
import dev.rota.server.testing.TestDatabase;
import org.apache.pekko.actor.testkit.typed.javadsl.LogCapturingExtension;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(LogCapturingExtension.class)
class MigrationsTest {

  @Nested
  @DisplayName("Migrations on H2")
  class OnH2 extends MigrationsContract {
    @Override
    TestDatabase newDatabase() {
      return Databases.h2();
    }
  }

  @Nested
  @DisplayName("Migrations on PostgreSQL")
  class OnPostgres extends MigrationsContract {
    @Override
    TestDatabase newDatabase() {
      return Databases.postgres();
    }
  }
}
