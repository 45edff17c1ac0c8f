package dev.rota.cluster.readmodel;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import org.apache.pekko.NotUsed;
import org.apache.pekko.persistence.PersistentRepr;
import org.apache.pekko.persistence.jdbc.PekkoSerialization$;
import org.apache.pekko.persistence.jdbc.config.ReadJournalConfig;
import org.apache.pekko.persistence.jdbc.journal.dao.JournalTables;
import org.apache.pekko.persistence.jdbc.query.dao.DefaultReadJournalDao;
import org.apache.pekko.serialization.Serialization;
import org.apache.pekko.stream.Materializer;
import org.apache.pekko.stream.scaladsl.Source;
import scala.Option;
import scala.Tuple3;
import scala.concurrent.ExecutionContext;
import scala.util.Try;
import slick.dbio.DBIOAction;
import slick.jdbc.JdbcBackend;
import slick.jdbc.JdbcProfile;
import slick.jdbc.SimpleJdbcAction;
import slick.jdbc.SimpleJdbcAction$;

/**
 * The read journal's DAO ({@code jdbc-read-journal.dao}) with one change: events by tag are read
 * from the tag's own rows. The plugin's query joins the journal's ordering range to the tags and
 * filters the tag, so each of the P partitions' projections reads every partition's events to find
 * its own — P rows read per row delivered, each with its payload, and a sort of the whole range
 * when the planner misjudges it (a fresh journal, a projection far behind). Measured: with 16
 * partitions, a projection catching up on 20k events kept PostgreSQL's two cores busy for minutes.
 *
 * <p>This query walks {@code event_tag (tag, event_id)} (migration V5) from the offset and fetches
 * each event by its ordering: rows read per row delivered is one, whatever the journal's size. The
 * rows, the bounds ({@code offset < ordering <= maxOffset}, as the plugin's sequence actor allows)
 * and the deserialization are the plugin's own, so offsets and envelopes are unchanged.
 */
public final class TagIndexReadJournalDao extends DefaultReadJournalDao {

  private static final String EVENTS_BY_TAG =
      "select j.ordering, j.deleted, j.persistence_id, j.sequence_number, j.writer,"
          + " j.write_timestamp, j.adapter_manifest, j.event_payload, j.event_ser_id,"
          + " j.event_ser_manifest, j.meta_payload, j.meta_ser_id, j.meta_ser_manifest"
          + " from event_tag t join event_journal j on j.ordering = t.event_id"
          + " where t.tag = ? and t.event_id > ? and t.event_id <= ? and j.deleted = false"
          + " order by t.event_id limit ?";

  /**
   * Not a tag: events by this name are every event of the journal in ordering order, with the
   * plugin's bounds and gap handling — the one ordered stream the event feed ({@link EventFeed})
   * resumes from. No event is ever tagged with it.
   */
  public static final String ALL_EVENTS = "rota:all-events";

  private static final String ALL_EVENTS_QUERY =
      "select j.ordering, j.deleted, j.persistence_id, j.sequence_number, j.writer,"
          + " j.write_timestamp, j.adapter_manifest, j.event_payload, j.event_ser_id,"
          + " j.event_ser_manifest, j.meta_payload, j.meta_ser_id, j.meta_ser_manifest"
          + " from event_journal j"
          + " where j.ordering > ? and j.ordering <= ? and j.deleted = false"
          + " order by j.ordering limit ?";

  private final JdbcBackend.JdbcDatabaseDef db;
  private final Serialization serialization;

  /** The constructor the plugin calls (by reflection, with these argument types). */
  public TagIndexReadJournalDao(
      JdbcBackend.JdbcDatabaseDef db,
      JdbcProfile profile,
      ReadJournalConfig readJournalConfig,
      Serialization serialization,
      ExecutionContext ec,
      Materializer mat) {
    super(db, profile, readJournalConfig, serialization, ec, mat);
    this.db = db;
    this.serialization = serialization;
  }

  @Override
  @SuppressWarnings({"unchecked", "rawtypes"})
  public Source<
          Try<Tuple3<PersistentRepr, scala.collection.immutable.Set<String>, Object>>, NotUsed>
      eventsByTag(String tag, long offset, long maxOffset, long max) {
    SimpleJdbcAction<List<JournalTables.JournalPekkoSerializationRow>> query =
        SimpleJdbcAction$.MODULE$.apply(ctx -> rows(ctx.connection(), tag, offset, maxOffset, max));
    // Slick's effect type is contravariant, which Java cannot say: a raw call.
    scala.concurrent.Future<List<JournalTables.JournalPekkoSerializationRow>> rows =
        db.run((DBIOAction) query);
    scala.collection.immutable.Set<String> noTags = scala.collection.immutable.Set$.MODULE$.empty();
    return org.apache.pekko.stream.javadsl.Source.future(rows)
        .mapConcat(list -> list)
        .map(
            row ->
                PekkoSerialization$.MODULE$
                    .fromRow(serialization, row)
                    .map(
                        (scala.Tuple2<PersistentRepr, Object> read) ->
                            new Tuple3<>(read._1(), noTags, read._2())))
        .asScala();
  }

  private static List<JournalTables.JournalPekkoSerializationRow> rows(
      Connection connection, String tag, long offset, long maxOffset, long max) {
    boolean all = ALL_EVENTS.equals(tag);
    try (PreparedStatement s =
        connection.prepareStatement(all ? ALL_EVENTS_QUERY : EVENTS_BY_TAG)) {
      int i = 1;
      if (!all) {
        s.setString(i++, tag);
      }
      s.setLong(i++, offset);
      s.setLong(i++, maxOffset);
      s.setLong(i, Math.min(max, Integer.MAX_VALUE));
      List<JournalTables.JournalPekkoSerializationRow> rows = new ArrayList<>();
      try (ResultSet rs = s.executeQuery()) {
        while (rs.next()) {
          rows.add(row(rs));
        }
      }
      return rows;
    } catch (SQLException e) {
      throw new ReadModelException("reading events tagged " + tag + " failed", e);
    }
  }

  private static JournalTables.JournalPekkoSerializationRow row(ResultSet rs) throws SQLException {
    int metaSerId = rs.getInt("meta_ser_id");
    Option<Object> metaSerIdOption = rs.wasNull() ? Option.empty() : Option.apply(metaSerId);
    return new JournalTables.JournalPekkoSerializationRow(
        rs.getLong("ordering"),
        rs.getBoolean("deleted"),
        rs.getString("persistence_id"),
        rs.getLong("sequence_number"),
        rs.getString("writer"),
        rs.getLong("write_timestamp"),
        rs.getString("adapter_manifest"),
        rs.getBytes("event_payload"),
        rs.getInt("event_ser_id"),
        rs.getString("event_ser_manifest"),
        Option.apply(rs.getBytes("meta_payload")),
        metaSerIdOption,
        Option.apply(rs.getString("meta_ser_manifest")));
  }
}
