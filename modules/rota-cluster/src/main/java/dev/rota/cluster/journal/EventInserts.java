package dev.rota.cluster.journal;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.util.ArrayList;
import java.util.List;

/**
 * The statements that add a batch of events and their tags to pekko-persistence-jdbc's tables
 * ({@code event_journal}, {@code event_tag}), in the rows its read journal reads. None of them
 * commits: the batch's writer does, after the read model's share of the same transaction.
 */
final class EventInserts {
  private static final String INSERT_EVENT =
      "insert into event_journal (deleted, persistence_id, sequence_number, writer,"
          + " write_timestamp, adapter_manifest, event_payload, event_ser_id, event_ser_manifest,"
          + " meta_payload, meta_ser_id, meta_ser_manifest)"
          + " values (false, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";
  private static final String INSERT_EVENTS_AND_TAGS =
      "with e as (insert into event_journal (deleted, persistence_id, sequence_number, writer,"
          + " write_timestamp, adapter_manifest, event_payload, event_ser_id, event_ser_manifest,"
          + " meta_payload, meta_ser_id, meta_ser_manifest)"
          + " select false, pid, seq, w, ts, am, ep, esi, esm, mp, msi, mm from unnest(?::text[],"
          + " ?::int8[], ?::text[], ?::int8[], ?::text[], ?::bytea[], ?::int4[], ?::text[],"
          + " ?::bytea[], ?::int4[], ?::text[]) with ordinality"
          + " as r(pid, seq, w, ts, am, ep, esi, esm, mp, msi, mm, n) order by n"
          + " returning ordering, persistence_id, sequence_number)"
          + " insert into event_tag (event_id, tag) select e.ordering, t.tag from e"
          + " join unnest(?::text[], ?::int8[], ?::text[]) as t(pid, seq, tag)"
          + " on e.persistence_id = t.pid and e.sequence_number = t.seq";
  private static final String INSERT_TAG = "insert into event_tag (event_id, tag) values (?, ?)";

  private EventInserts() {}

  /** Adds the rows: one statement on PostgreSQL, two batched statements elsewhere. */
  static void insert(Connection connection, List<EventRow> rows, boolean postgres)
      throws SQLException {
    if (postgres) {
      insertInOneStatement(connection, rows);
    } else {
      insertBatched(connection, rows);
    }
  }

  /** A batched event insert, then a batched tag insert keyed by the orderings it generated. */
  private static void insertBatched(Connection connection, List<EventRow> rows)
      throws SQLException {
    long[] orderings = new long[rows.size()];
    try (PreparedStatement insert =
        connection.prepareStatement(INSERT_EVENT, new String[] {"ordering"})) {
      for (EventRow row : rows) {
        bind(insert, row);
        insert.addBatch();
      }
      insert.executeBatch();
      int n = 0;
      try (ResultSet keys = insert.getGeneratedKeys()) {
        while (keys.next() && n < orderings.length) {
          orderings[n++] = keys.getLong(1);
        }
      }
      if (n != rows.size()) {
        throw new SQLException(
            "the driver returned " + n + " generated orderings for " + rows.size() + " events");
      }
    }
    boolean anyTags = rows.stream().anyMatch(row -> !row.tags().isEmpty());
    if (anyTags) {
      try (PreparedStatement tag = connection.prepareStatement(INSERT_TAG)) {
        for (int i = 0; i < rows.size(); i++) {
          for (String t : rows.get(i).tags()) {
            tag.setLong(1, orderings[i]);
            tag.setString(2, t);
            tag.addBatch();
          }
        }
        tag.executeBatch();
      }
    }
  }

  /**
   * PostgreSQL: the events and their tags in one statement (the events as arrays, unnested in
   * order, so orderings follow the write order; the tags joined to the orderings the insert
   * returns), so a batch costs one round trip and its commit, not three.
   */
  private static void insertInOneStatement(Connection connection, List<EventRow> rows)
      throws SQLException {
    int n = rows.size();
    String[] ids = new String[n];
    Long[] sequenceNrs = new Long[n];
    String[] writers = new String[n];
    Long[] timestamps = new Long[n];
    String[] adapterManifests = new String[n];
    byte[][] payloads = new byte[n][];
    Integer[] serializerIds = new Integer[n];
    String[] serializerManifests = new String[n];
    byte[][] metaPayloads = new byte[n][];
    Integer[] metaSerializerIds = new Integer[n];
    String[] metaManifests = new String[n];
    List<String> tagIds = new ArrayList<>();
    List<Long> tagSequenceNrs = new ArrayList<>();
    List<String> tags = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      EventRow row = rows.get(i);
      ids[i] = row.persistenceId();
      sequenceNrs[i] = row.sequenceNr();
      writers[i] = row.writer();
      timestamps[i] = row.timestamp();
      adapterManifests[i] = row.adapterManifest();
      payloads[i] = row.payload();
      serializerIds[i] = row.serializerId();
      serializerManifests[i] = row.serializerManifest();
      metaPayloads[i] = row.metaPayload();
      metaSerializerIds[i] = row.metaSerializerId();
      metaManifests[i] = row.metaManifest();
      for (String tag : row.tags()) {
        tagIds.add(row.persistenceId());
        tagSequenceNrs.add(row.sequenceNr());
        tags.add(tag);
      }
    }
    try (PreparedStatement insert = connection.prepareStatement(INSERT_EVENTS_AND_TAGS)) {
      int p = 1;
      insert.setArray(p++, connection.createArrayOf("text", ids));
      insert.setArray(p++, connection.createArrayOf("int8", sequenceNrs));
      insert.setArray(p++, connection.createArrayOf("text", writers));
      insert.setArray(p++, connection.createArrayOf("int8", timestamps));
      insert.setArray(p++, connection.createArrayOf("text", adapterManifests));
      insert.setArray(p++, connection.createArrayOf("bytea", payloads));
      insert.setArray(p++, connection.createArrayOf("int4", serializerIds));
      insert.setArray(p++, connection.createArrayOf("text", serializerManifests));
      insert.setArray(p++, connection.createArrayOf("bytea", metaPayloads));
      insert.setArray(p++, connection.createArrayOf("int4", metaSerializerIds));
      insert.setArray(p++, connection.createArrayOf("text", metaManifests));
      insert.setArray(p++, connection.createArrayOf("text", tagIds.toArray(String[]::new)));
      insert.setArray(p++, connection.createArrayOf("int8", tagSequenceNrs.toArray(Long[]::new)));
      insert.setArray(p, connection.createArrayOf("text", tags.toArray(String[]::new)));
      insert.executeUpdate();
    }
  }

  private static void bind(PreparedStatement s, EventRow row) throws SQLException {
    s.setString(1, row.persistenceId());
    s.setLong(2, row.sequenceNr());
    s.setString(3, row.writer());
    s.setLong(4, row.timestamp());
    s.setString(5, row.adapterManifest());
    s.setBytes(6, row.payload());
    s.setInt(7, row.serializerId());
    s.setString(8, row.serializerManifest());
    s.setBytes(9, row.metaPayload());
    if (row.metaSerializerId() == null) {
      s.setNull(10, Types.INTEGER);
    } else {
      s.setInt(10, row.metaSerializerId());
    }
    s.setString(11, row.metaManifest());
  }
}
