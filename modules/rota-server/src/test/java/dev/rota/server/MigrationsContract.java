package dev.rota.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.server.testing.TestDatabase;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.OffsetDateTime;
import java.util.LinkedHashSet;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * What the migrations must do on every database; run by {@link MigrationsTest} per database. The
 * inspecting tests share one migrated database.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class MigrationsContract {
  private TestDatabase testDatabase;
  private Database database;

  /** A fresh, empty database on each call. */
  abstract TestDatabase newDatabase();

  @BeforeAll
  void migrateSharedDatabase() {
    testDatabase = newDatabase();
    database = testDatabase.openMigrated();
  }

  @AfterAll
  void dropSharedDatabase() {
    database.close();
    testDatabase.close();
  }

  @Test
  void appliesEveryMigrationOnceAndNothingOnARestart() {
    try (TestDatabase empty = newDatabase()) {
      try (Database first = empty.open()) {
        assertEquals(14, first.migrate());
        assertEquals(0, first.migrate());
      }
      try (Database restarted = empty.open()) {
        assertEquals(0, restarted.migrate());
      }
    }
  }

  @Test
  void recordsASettingOnceAndRefusesAnotherValueLater() {
    try (TestDatabase empty = newDatabase()) {
      try (Database first = empty.openMigrated()) {
        first.requireSetting("rota.partitions", "16");
        first.requireSetting("rota.partitions", "16");
      }
      try (Database restarted = empty.open()) {
        restarted.requireSetting("rota.partitions", "16");
        StartupException refused =
            assertThrows(
                StartupException.class, () -> restarted.requireSetting("rota.partitions", "4"));
        assertTrue(refused.getMessage().startsWith("rota.partitions is 4 but database "));
        assertTrue(
            refused
                .getMessage()
                .endsWith(
                    "was written with 16, and it cannot change while the"
                        + " database holds a journal: set rota.partitions = 16"),
            refused.getMessage());
        assertFalse(refused.getMessage().contains("\n"), refused.getMessage());
      }
    }
  }

  @Test
  void createsThePluginAndReadModelTables() throws SQLException {
    try (Connection connection = database.dataSource().getConnection()) {
      Set<String> tables = tables(connection.getMetaData());
      for (String table :
          Set.of(
              "event_journal",
              "event_tag",
              "snapshot",
              "pekko_projection_offset_store",
              "pekko_projection_management",
              "agent_schedule",
              "dead_letter",
              "rota_counter",
              "rota_setting",
              "agent_outbox_after_delete",
              "journal_mark",
              "journal_retention",
              "flyway_schema_history")) {
        assertTrue(tables.contains(table), table + " missing; tables: " + tables);
      }
    }
  }

  @Test
  void givesTheReadModelTheSameColumnsOnEveryDatabase() throws SQLException {
    try (Connection connection = database.dataSource().getConnection()) {
      DatabaseMetaData meta = connection.getMetaData();
      assertEquals(
          Set.of(
              "agent_id",
              "partition_id",
              "name",
              "capabilities",
              "priority",
              "unread",
              "oldest_unread_at",
              "last_activated_at",
              "activation_count",
              "min_activation_interval_seconds",
              "lease_id",
              "lease_runner_id",
              "lease_kind",
              "lease_expires_at",
              "paused",
              "snoozed_until",
              "next_fire_at",
              "dead_letters",
              "seq_nr",
              "updated_at",
              "registered_at",
              "rebuild",
              "config",
              "lease_granted_at",
              "outbox"),
          columns(meta, "agent_schedule"));
      assertEquals(
          Set.of(
              "id",
              "agent_id",
              "notification_id",
              "type",
              "payload",
              "attempts",
              "reason",
              "dead_at"),
          columns(meta, "dead_letter"));
    }
  }

  @Test
  void storesAndReadsAReadModelRowWithTimestampsInUtc() throws SQLException {
    OffsetDateTime oldestUnread = OffsetDateTime.parse("2026-01-02T03:04:05Z");
    try (Connection connection = database.dataSource().getConnection()) {
      try (PreparedStatement insert =
          connection.prepareStatement(
              "insert into agent_schedule (agent_id, partition_id, capabilities, unread,"
                  + " oldest_unread_at, seq_nr, updated_at) values (?, ?, ?, ?, ?, ?, ?)")) {
        insert.setString(1, "a1");
        insert.setInt(2, 7);
        insert.setString(3, "code,web");
        insert.setInt(4, 2);
        insert.setObject(5, oldestUnread);
        insert.setLong(6, 3);
        insert.setObject(7, oldestUnread);
        assertEquals(1, insert.executeUpdate());
      }
      try (PreparedStatement select =
              connection.prepareStatement(
                  "select partition_id, capabilities, unread, oldest_unread_at, paused,"
                      + " activation_count from agent_schedule where agent_id = 'a1'");
          ResultSet row = select.executeQuery()) {
        assertTrue(row.next());
        assertEquals(7, row.getInt("partition_id"));
        assertEquals("code,web", row.getString("capabilities"));
        assertEquals(2, row.getInt("unread"));
        assertEquals(
            oldestUnread.toInstant(),
            row.getObject("oldest_unread_at", OffsetDateTime.class).toInstant());
        assertFalse(row.getBoolean("paused"));
        assertEquals(0, row.getLong("activation_count"));
      }
    }
  }

  private static Set<String> tables(DatabaseMetaData meta) throws SQLException {
    Set<String> names = new LinkedHashSet<>();
    try (ResultSet rows =
        meta.getTables(null, null, "%", new String[] {"TABLE", "PARTITIONED TABLE"})) {
      while (rows.next()) {
        names.add(rows.getString("TABLE_NAME"));
      }
    }
    return names;
  }

  private static Set<String> columns(DatabaseMetaData meta, String table) throws SQLException {
    Set<String> names = new LinkedHashSet<>();
    try (ResultSet rows = meta.getColumns(null, null, table, "%")) {
      while (rows.next()) {
        names.add(rows.getString("COLUMN_NAME"));
      }
    }
    return names;
  }
}
