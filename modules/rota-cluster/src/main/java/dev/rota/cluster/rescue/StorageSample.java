package dev.rota.cluster.rescue;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import javax.sql.DataSource;

/**
 * The storage figures the journal's maintenance publishes after each run: the journal's rows and
 * bytes, the age of its oldest event, and the read model's dead tuples (what vacuum has still to
 * reclaim of {@code agent_schedule}, {@code dead_letter} and {@code rota_counter}). On PostgreSQL
 * rows are the planner's estimate (no count of a large table) and bytes include indexes and TOAST;
 * on H2 rows are counted, and bytes and dead tuples are unknown (-1).
 */
final class StorageSample {
  private StorageSample() {}

  /** One sample; -1 where the database does not tell. */
  record Storage(long journalRows, long journalBytes, Duration oldestEventAge, long deadTuples) {}

  private static final String PG_JOURNAL =
      "select coalesce(sum(greatest(c.reltuples, 0)), 0)::bigint,"
          + " coalesce(sum(pg_total_relation_size(c.oid)), 0)::bigint"
          + " from pg_inherits i join pg_class c on c.oid = i.inhrelid"
          + " where i.inhparent = 'event_journal'::regclass";

  private static final String PG_DEAD =
      "select coalesce(sum(n_dead_tup), 0) from pg_stat_user_tables"
          + " where relname in ('agent_schedule', 'dead_letter', 'rota_counter')";

  private static final String OLDEST =
      "select write_timestamp from event_journal order by ordering fetch first 1 rows only";

  static Storage take(DataSource dataSource, Instant now) throws SQLException {
    try (Connection c = dataSource.getConnection();
        Statement s = c.createStatement()) {
      boolean postgres = "PostgreSQL".equals(c.getMetaData().getDatabaseProductName());
      long rows;
      long bytes = -1;
      long dead = -1;
      if (postgres) {
        try (ResultSet rs = s.executeQuery(PG_JOURNAL)) {
          rs.next();
          rows = rs.getLong(1);
          bytes = rs.getLong(2);
        }
        try (ResultSet rs = s.executeQuery(PG_DEAD)) {
          rs.next();
          dead = rs.getLong(1);
        }
      } else {
        try (ResultSet rs = s.executeQuery("select count(*) from event_journal")) {
          rs.next();
          rows = rs.getLong(1);
        }
      }
      Duration age = Duration.ZERO;
      try (ResultSet rs = s.executeQuery(OLDEST)) {
        if (rs.next() && rs.getLong(1) > 0) {
          age = Duration.between(Instant.ofEpochMilli(rs.getLong(1)), now);
        }
      }
      return new Storage(rows, bytes, age.isNegative() ? Duration.ZERO : age, dead);
    }
  }
}
