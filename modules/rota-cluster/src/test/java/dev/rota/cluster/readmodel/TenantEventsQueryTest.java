package dev.rota.cluster.readmodel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.cluster.testing.TestDatabase;
import dev.rota.cluster.testing.TestDatabase.Dialect;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The journal query behind a tenant's event stream, on H2 and PostgreSQL: it returns the events of
 * the tenant's agents only, in ordering order, and its row limit counts those rows, so the other
 * tenants' and the system's events never leave the database.
 */
class TenantEventsQueryTest {
  private static final String[] WRITTEN = {
    "Agent|acme/a1", "Agent|beta/b1", "rota-runner-health", "Agent|plain", "Agent|beta/b2",
    "Agent|acme/a2", "Agent|acme-two/x", "Agent|acme/a1", "Agent|other", "Agent|beta/b1",
  };

  @ParameterizedTest
  @EnumSource(Dialect.class)
  void readsOnlyTheTenantsAgentsEventsInOrder(Dialect dialect) throws Exception {
    try (TestDatabase db = TestDatabase.of(dialect);
        Connection c = db.dataSource().getConnection()) {
      write(c);

      assertEquals(
          List.of("Agent|acme/a1", "Agent|acme/a2", "Agent|acme/a1"),
          ids(c, TagIndexReadJournalDao.tenantEvents(Set.of("acme")), 0, 100));
      assertEquals(
          List.of("Agent|plain", "Agent|other"),
          ids(c, TagIndexReadJournalDao.tenantEvents(Set.of("default")), 0, 100));
      assertEquals(
          List.of("Agent|beta/b1", "Agent|beta/b2", "Agent|acme-two/x", "Agent|beta/b1"),
          ids(c, TagIndexReadJournalDao.tenantEvents(Set.of("beta", "acme-two")), 0, 100));
      // The limit counts the tenant's rows: two of acme's, though six rows lie between them.
      assertEquals(
          List.of("Agent|acme/a1", "Agent|acme/a2"),
          ids(c, TagIndexReadJournalDao.tenantEvents(Set.of("acme")), 0, 2));
      // Resuming after an ordering continues from it.
      List<String> all = ids(c, TagIndexReadJournalDao.ALL_EVENTS, 0, 100);
      assertEquals(WRITTEN.length, all.size());
      assertEquals(
          List.of("Agent|acme/a1"),
          ids(c, TagIndexReadJournalDao.tenantEvents(Set.of("acme")), 6, 100));
    }
  }

  @Test
  void refusesANameThatIsNoTenant() {
    assertThrows(
        IllegalArgumentException.class, () -> TagIndexReadJournalDao.tenantEvents(Set.of("acme%")));
    assertThrows(
        IllegalArgumentException.class, () -> TagIndexReadJournalDao.tenantEvents(Set.of()));
    assertTrue(
        TagIndexReadJournalDao.query("rota:tenant-events:acme").sql().contains("persistence_id"));
  }

  private static void write(Connection c) throws Exception {
    try (PreparedStatement s =
        c.prepareStatement(
            "insert into event_journal (persistence_id, sequence_number, writer,"
                + " write_timestamp, adapter_manifest, event_payload, event_ser_id,"
                + " event_ser_manifest) values (?, ?, 'w', 0, '', ?, 1, 'm')")) {
      for (int i = 0; i < WRITTEN.length; i++) {
        s.setString(1, WRITTEN[i]);
        s.setLong(2, i + 1);
        s.setBytes(3, new byte[] {1});
        s.executeUpdate();
      }
    }
  }

  /**
   * The persistence ids of the rows {@code tag} reads after {@code offset}, at most {@code max}.
   */
  private static List<String> ids(Connection c, String tag, long offset, long max) {
    List<String> ids = new ArrayList<>();
    for (var row : TagIndexReadJournalDao.rows(c, tag, offset, Long.MAX_VALUE, max)) {
      ids.add(row.persistenceId());
    }
    return ids;
  }
}
