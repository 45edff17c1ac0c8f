package dev.rota.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.cluster.journal.JournalPartitions;
import dev.rota.cluster.readmodel.TagIndexReadJournalDao;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.apache.pekko.persistence.jdbc.query.javadsl.JdbcReadJournal;
import org.apache.pekko.persistence.query.EventEnvelope;
import org.apache.pekko.persistence.query.Offset;
import org.apache.pekko.persistence.query.PersistenceQuery;
import org.apache.pekko.persistence.query.Sequence;
import org.apache.pekko.stream.javadsl.Sink;
import org.apache.pekko.stream.javadsl.Source;

/**
 * The journal of a restored upgrade fixture, as the old release wrote it and after a node of this
 * one migrated it ({@link UpgradeFixtureTest}): the migration that partitions PostgreSQL's journal
 * (V13, decision 124) applied, the old journal become its first partition with every row in place,
 * and every event of the fixture read back through the journal plugin — by persistence id, as an
 * entity recovers, and in the journal's order, as the events stream reads.
 */
final class UpgradedJournal {
  /** The migration that partitions PostgreSQL's journal and adds retention's tables. */
  static final String PARTITIONING_VERSION = "13";

  private static final long READ_SECONDS = 30;

  /** One event of the journal, by where it stands. */
  record Row(long ordering, String persistenceId, long sequenceNumber) {}

  private final List<Row> fixture;
  private final long highest;

  private UpgradedJournal(List<Row> fixture) {
    this.fixture = fixture;
    this.highest = fixture.get(fixture.size() - 1).ordering();
  }

  /** The fixture's events as restored, before any node of this release touched the database. */
  static UpgradedJournal before(DataSource restored) throws SQLException {
    try (Connection c = restored.getConnection()) {
      List<Row> rows = rows(c, "event_journal", Long.MAX_VALUE);
      assertFalse(rows.isEmpty(), "the fixture holds no event");
      try (PreparedStatement s =
              c.prepareStatement("select count(*) from flyway_schema_history where version = ?");
          ResultSet applied = bind(s, PARTITIONING_VERSION).executeQuery()) {
        applied.next();
        assertEquals(0, applied.getInt(1), "the fixture is already at " + PARTITIONING_VERSION);
      }
      return new UpgradedJournal(rows);
    }
  }

  /** Holds the node's migrated database and its journal to the fixture's events. */
  void checkMigrated(RotaNode node, boolean onPostgres) throws Exception {
    try (Connection c = node.dataSource().getConnection()) {
      try (PreparedStatement s =
              c.prepareStatement(
                  "select count(*) from flyway_schema_history where version = ? and success");
          ResultSet applied = bind(s, PARTITIONING_VERSION).executeQuery()) {
        applied.next();
        assertEquals(1, applied.getInt(1), "migration " + PARTITIONING_VERSION + " not applied");
      }
      assertEquals(onPostgres, JournalPartitions.partitioned(c), "journal partitioned");
      if (onPostgres) {
        List<JournalPartitions.Partition> partitions = JournalPartitions.list(c);
        JournalPartitions.Partition first = partitions.get(0);
        assertEquals("event_journal_p0", first.name(), partitions.toString());
        assertEquals(Long.MIN_VALUE, first.from(), partitions.toString());
        assertTrue(first.to() > highest, "p0 ends at " + first.to() + ", below " + highest);
        assertTrue(partitions.size() >= 3, "none created ahead: " + partitions);
        assertEquals(fixture, rows(c, "event_journal_p0", highest), "the old journal in p0");
      }
      assertEquals(fixture, rows(c, "event_journal", highest), "the fixture's rows");
    }
    JdbcReadJournal journal =
        PersistenceQuery.get(node.system().classicSystem())
            .getReadJournalFor(JdbcReadJournal.class, JdbcReadJournal.Identifier());
    Map<String, List<Row>> byEntity = new TreeMap<>();
    for (Row row : fixture) {
      byEntity.computeIfAbsent(row.persistenceId(), id -> new ArrayList<>()).add(row);
    }
    for (Map.Entry<String, List<Row>> entity : byEntity.entrySet()) {
      assertEquals(
          entity.getValue(),
          read(node, journal.currentEventsByPersistenceId(entity.getKey(), 0, Long.MAX_VALUE)),
          "the events of " + entity.getKey());
    }
    assertEquals(
        fixture,
        read(
            node, journal.currentEventsByTag(TagIndexReadJournalDao.ALL_EVENTS, Offset.noOffset())),
        "the journal in order");
  }

  /** The envelopes of the fixture's orderings, each event deserialized by its stored manifest. */
  private List<Row> read(RotaNode node, Source<EventEnvelope, ?> events) throws Exception {
    List<EventEnvelope> envelopes =
        events
            .runWith(Sink.seq(), node.system())
            .toCompletableFuture()
            .get(READ_SECONDS, TimeUnit.SECONDS);
    List<Row> rows = new ArrayList<>();
    for (EventEnvelope envelope : envelopes) {
      long ordering = ((Sequence) envelope.offset()).value();
      if (ordering > highest) {
        continue;
      }
      assertTrue(
          envelope.event().getClass().getName().startsWith("dev.rota."),
          "not one of Rota's events: " + envelope.event().getClass());
      rows.add(new Row(ordering, envelope.persistenceId(), envelope.sequenceNr()));
    }
    return rows;
  }

  private static List<Row> rows(Connection c, String table, long atMost) throws SQLException {
    List<Row> rows = new ArrayList<>();
    try (PreparedStatement s =
        c.prepareStatement(
            "select ordering, persistence_id, sequence_number from "
                + table
                + " where ordering <= ? order by ordering")) {
      s.setLong(1, atMost);
      try (ResultSet rs = s.executeQuery()) {
        while (rs.next()) {
          rows.add(new Row(rs.getLong(1), rs.getString(2), rs.getLong(3)));
        }
      }
    }
    return rows;
  }

  private static PreparedStatement bind(PreparedStatement s, String version) throws SQLException {
    s.setString(1, version);
    return s;
  }
}
