package dev.rota.cluster.readmodel;

import dev.rota.cluster.testing.TestDatabase;
import org.junit.jupiter.api.AfterAll;

/** {@link ReadModelContract} on H2 in native mode, as the embedded default runs it. */
class ReadModelH2Test extends ReadModelContract {
  private static final TestDatabase DB = TestDatabase.h2();

  @AfterAll
  static void close() {
    DB.close();
  }

  @Override
  protected TestDatabase db() {
    return DB;
  }
}
