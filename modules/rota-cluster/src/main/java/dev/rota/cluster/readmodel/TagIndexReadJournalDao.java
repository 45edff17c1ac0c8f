package dev.rota.cluster.readmodel;

import dev.rota.cluster.agent.AgentEntity;
import dev.rota.cluster.journal.JournalPartitions;
import dev.rota.core.tenant.AgentKeys;
import dev.rota.core.tenant.Tenants;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.TreeSet;
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
          + " and j.writer <> '"
          + JournalPartitions.CARRIED_WRITER
          + "'"
          + " order by j.ordering limit ?";

  /**
   * Not a tag either: events by {@code rota:tenant-events:acme,beta} ({@link #tenantEvents}) are
   * {@link #ALL_EVENTS} narrowed, in the database, to the events of those tenants' agents (their
   * persistence ids), so a tenant's replay leaves the database with its own rows only.
   */
  static final String TENANT_EVENTS = "rota:tenant-events:";

  private static final String AGENT_PREFIX = AgentEntity.ENTITY_TYPE_KEY.name() + "|";

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

  /** The name that reads the events of {@code tenants}' agents in journal order. */
  public static String tenantEvents(Collection<String> tenants) {
    if (tenants.isEmpty()) {
      throw new IllegalArgumentException("no tenant: read ALL_EVENTS");
    }
    for (String tenant : tenants) {
      if (!Tenants.isValidName(tenant)) {
        throw new IllegalArgumentException("not a tenant name: " + tenant);
      }
    }
    return TENANT_EVENTS + String.join(",", new TreeSet<>(tenants));
  }

  /**
   * The query of {@code tag} and the persistence id patterns it binds after the ordering range: an
   * agent of the default tenant is keyed by its id alone, another's by {@code <tenant>/<id>}
   * (AgentKeys); tenant names hold no {@code LIKE} wildcard.
   */
  static Query query(String tag) {
    if (ALL_EVENTS.equals(tag)) {
      return new Query(ALL_EVENTS_QUERY, List.of(), false);
    }
    if (!tag.startsWith(TENANT_EVENTS)) {
      return new Query(EVENTS_BY_TAG, List.of(), true);
    }
    List<String> patterns = new ArrayList<>();
    List<String> clauses = new ArrayList<>();
    for (String tenant : tag.substring(TENANT_EVENTS.length()).split(",")) {
      if (!Tenants.isValidName(tenant)) {
        throw new IllegalArgumentException("not a tenant name: " + tenant);
      }
      if (Tenants.DEFAULT.equals(tenant)) {
        clauses.add("(j.persistence_id like ? and j.persistence_id not like ?)");
        patterns.add(AGENT_PREFIX + "%");
        patterns.add(AGENT_PREFIX + "%/%");
      } else {
        clauses.add("j.persistence_id like ?");
        patterns.add(AGENT_PREFIX + AgentKeys.likePattern(tenant));
      }
    }
    String sql =
        ALL_EVENTS_QUERY.replace(
            " order by", " and (" + String.join(" or ", clauses) + ") order by");
    return new Query(sql, patterns, false);
  }

  /** A query of the journal: its SQL, its patterns, and whether it binds a tag first. */
  record Query(String sql, List<String> patterns, boolean bindsTag) {}

  static List<JournalTables.JournalPekkoSerializationRow> rows(
      Connection connection, String tag, long offset, long maxOffset, long max) {
    Query query = query(tag);
    try (PreparedStatement s = connection.prepareStatement(query.sql())) {
      int i = 1;
      if (query.bindsTag()) {
        s.setString(i++, tag);
      }
      s.setLong(i++, offset);
      s.setLong(i++, maxOffset);
      for (String pattern : query.patterns()) {
        s.setString(i++, pattern);
      }
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
