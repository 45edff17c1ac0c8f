package dev.rota.bench.budget;

import dev.rota.bench.system.BenchDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * PostgreSQL's own counters for one trial's database, read by the budget. Two kinds, read at two
 * cadences:
 *
 * <ul>
 *   <li>at every mark of a level (so that only its counted segments add up): {@code
 *       pg_stat_statements} of the trial's database and the WAL insert position, both exact at the
 *       instant they are read — a statement's counters are updated when it ends, the WAL position
 *       as it is written;
 *   <li>at the level's start and end only, each after a pause that lets every backend report: the
 *       tables' row counters ({@code pg_stat_user_tables}), {@code pg_stat_wal} and the database's
 *       commits ({@code pg_stat_database}). Backends send these at most once a second, so a read
 *       between two top-ups would say little about the segment between them.
 * </ul>
 *
 * <p>Statements and WAL are read over a connection to the {@code postgres} database, so the
 * budget's own queries are never among the trial database's statements.
 */
final class PgCounters implements AutoCloseable {

  /** One statement shape's counters ({@code pg_stat_statements}), or their growth. */
  record StatementCounters(
      String query,
      long calls,
      double execMillis,
      long rows,
      long walRecords,
      long walFpi,
      long walBytes) {

    StatementCounters minus(StatementCounters before) {
      if (before == null) {
        return this;
      }
      return new StatementCounters(
          query,
          calls - before.calls,
          execMillis - before.execMillis,
          rows - before.rows,
          walRecords - before.walRecords,
          walFpi - before.walFpi,
          walBytes - before.walBytes);
    }

    StatementCounters named(String shape) {
      return new StatementCounters(shape, calls, execMillis, rows, walRecords, walFpi, walBytes);
    }

    StatementCounters plus(StatementCounters other) {
      return new StatementCounters(
          query,
          calls + other.calls,
          execMillis + other.execMillis,
          rows + other.rows,
          walRecords + other.walRecords,
          walFpi + other.walFpi,
          walBytes + other.walBytes);
    }
  }

  /** What is read at every mark: statements by shape (empty without the extension) and WAL. */
  record Snapshot(Map<String, StatementCounters> statements, long walPosition) {}

  /** One table's row counters ({@code pg_stat_user_tables}) and its indexes. */
  record TableCounters(
      long inserted, long updated, long hotUpdated, long deleted, int indexes, int partialIndexes) {

    TableCounters minus(TableCounters before) {
      if (before == null) {
        return this;
      }
      return new TableCounters(
          inserted - before.inserted,
          updated - before.updated,
          hotUpdated - before.hotUpdated,
          deleted - before.deleted,
          indexes,
          partialIndexes);
    }
  }

  /** What is read at a level's start and end. */
  record LevelCounters(
      Map<String, TableCounters> tables,
      long walRecords,
      long walFpi,
      long walBytes,
      long commits) {

    LevelCounters minus(LevelCounters before) {
      Map<String, TableCounters> grown = new LinkedHashMap<>();
      tables.forEach((name, now) -> grown.put(name, now.minus(before.tables.get(name))));
      return new LevelCounters(
          grown,
          walRecords - before.walRecords,
          walFpi - before.walFpi,
          walBytes - before.walBytes,
          commits - before.commits);
    }
  }

  private static final String STATEMENTS =
      "SELECT s.queryid::text || ':' || s.toplevel::text, s.query, s.calls, s.total_exec_time,"
          + " s.rows, s.wal_records, s.wal_fpi, s.wal_bytes"
          + " FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid WHERE d.datname = ?";

  private static final String TABLES =
      "SELECT t.relname, t.n_tup_ins, t.n_tup_upd, t.n_tup_hot_upd, t.n_tup_del,"
          + " (SELECT count(*) FROM pg_index i WHERE i.indrelid = t.relid),"
          + " (SELECT count(*) FROM pg_index i WHERE i.indrelid = t.relid"
          + " AND i.indpred IS NOT NULL)"
          + " FROM pg_stat_user_tables t ORDER BY t.relname";

  private final String database;
  private final Connection admin;
  private final Connection trial;
  private final String statementsUnavailable;
  private PreparedStatement statements;

  private PgCounters(
      String database, Connection admin, Connection trial, String statementsUnavailable) {
    this.database = database;
    this.admin = admin;
    this.trial = trial;
    this.statementsUnavailable = statementsUnavailable;
  }

  /**
   * Connects to the trial's database and to {@code postgres}, where {@code pg_stat_statements} is
   * created if the server preloads it; resets its counters.
   */
  static PgCounters open(BenchDatabase trialDatabase) throws SQLException {
    BenchDatabase postgres =
        new BenchDatabase(
            trialDatabase.host(),
            trialDatabase.port(),
            "postgres",
            trialDatabase.user(),
            trialDatabase.password());
    Connection admin = postgres.connect();
    Connection trial = null;
    try {
      trial = trialDatabase.connect();
      String unavailable = null;
      try (Statement s = admin.createStatement()) {
        s.execute("CREATE EXTENSION IF NOT EXISTS pg_stat_statements");
        s.execute("SELECT pg_stat_statements_reset()");
      } catch (SQLException e) {
        unavailable =
            "pg_stat_statements is not loaded (shared_preload_libraries): " + e.getMessage();
      }
      return new PgCounters(trialDatabase.name(), admin, trial, unavailable);
    } catch (SQLException | RuntimeException e) {
      admin.close();
      if (trial != null) {
        trial.close();
      }
      throw e;
    }
  }

  /** Why statements are not measured, or null when they are. */
  String statementsUnavailable() {
    return statementsUnavailable;
  }

  Snapshot snapshot() throws SQLException {
    Map<String, StatementCounters> byShape = new HashMap<>();
    if (statementsUnavailable == null) {
      if (statements == null) {
        statements = admin.prepareStatement(STATEMENTS);
        statements.setString(1, database);
      }
      try (ResultSet rs = statements.executeQuery()) {
        while (rs.next()) {
          byShape.put(
              rs.getString(1),
              new StatementCounters(
                  rs.getString(2),
                  rs.getLong(3),
                  rs.getDouble(4),
                  rs.getLong(5),
                  rs.getLong(6),
                  rs.getLong(7),
                  rs.getLong(8)));
        }
      }
    }
    return new Snapshot(byShape, walPosition());
  }

  LevelCounters level() throws SQLException {
    Map<String, TableCounters> tables = new LinkedHashMap<>();
    try (Statement s = trial.createStatement();
        ResultSet rs = s.executeQuery(TABLES)) {
      while (rs.next()) {
        tables.put(
            rs.getString(1),
            new TableCounters(
                rs.getLong(2),
                rs.getLong(3),
                rs.getLong(4),
                rs.getLong(5),
                rs.getInt(6),
                rs.getInt(7)));
      }
    }
    long records;
    long fpi;
    long bytes;
    try (Statement s = admin.createStatement();
        ResultSet rs = s.executeQuery("SELECT wal_records, wal_fpi, wal_bytes FROM pg_stat_wal")) {
      rs.next();
      records = rs.getLong(1);
      fpi = rs.getLong(2);
      bytes = rs.getLong(3);
    }
    long commits;
    try (PreparedStatement s =
        admin.prepareStatement("SELECT xact_commit FROM pg_stat_database WHERE datname = ?")) {
      s.setString(1, database);
      try (ResultSet rs = s.executeQuery()) {
        commits = rs.next() ? rs.getLong(1) : 0;
      }
    }
    return new LevelCounters(tables, records, fpi, bytes, commits);
  }

  /** Bytes of WAL written since the cluster began: the insert position. */
  private long walPosition() throws SQLException {
    try (Statement s = admin.createStatement();
        ResultSet rs =
            s.executeQuery("SELECT pg_wal_lsn_diff(pg_current_wal_insert_lsn(), '0/0')::bigint")) {
      rs.next();
      return rs.getLong(1);
    }
  }

  @Override
  public void close() throws SQLException {
    try {
      if (statements != null) {
        statements.close();
      }
      admin.close();
    } finally {
      trial.close();
    }
  }
}
