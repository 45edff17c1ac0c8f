package dev.rota.cluster.readmodel;

import dev.rota.cluster.testing.TestDatabase;
import org.junit.jupiter.api.AfterAll;

/** {@link ReadModelContract} on a real PostgreSQL 16 (embedded), as production runs it. */
class ReadModelPostgresTest extends ReadModelContract {
  private static final TestDatabase DB = TestDatabase.postgres();

  @AfterAll
  static void close() {
    DB.close();
  }

  @Override
  protected TestDatabase db() {
    return DB;
  }
}
