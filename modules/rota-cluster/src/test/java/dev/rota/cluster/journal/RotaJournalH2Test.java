package dev.rota.cluster.journal;

import dev.rota.cluster.testing.TestDatabase;
import org.junit.jupiter.api.BeforeAll;

/** {@link RotaJournalContract} on H2. */
class RotaJournalH2Test extends RotaJournalContract {
  @BeforeAll
  static void startOnH2() {
    start(TestDatabase.h2(), "RotaJournalH2Test");
  }
}
