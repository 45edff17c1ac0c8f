package dev.rota.cluster.journal;

import dev.rota.cluster.testing.TestDatabase;
import org.junit.jupiter.api.BeforeAll;

/** {@link RotaJournalContract} on Postgres. */
class RotaJournalPostgresTest extends RotaJournalContract {
  @BeforeAll
  static void startOnPostgres() {
    start(TestDatabase.postgres(), "RotaJournalPostgresTest");
  }
}
