package dev.rota.cluster.journal;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.Instant;

/**
 * What tells retention how old an ordering is and how far it went (decision 124): a mark per run,
 * the journal's highest ordering and the time ({@code journal_mark}), so a row at or below a mark
 * taken more than the retention ago is older than it, without reading any row's time; and the
 * highest ordering retention may have removed ({@code journal_retention.removed_through}).
 */
final class JournalMarks {
  private JournalMarks() {}

  static void mark(Connection c, Instant now) throws SQLException {
    try (PreparedStatement s =
        c.prepareStatement(
            "insert into journal_mark (taken_at, ordering)"
                + " select ?, coalesce(max(ordering), 0) from event_journal")) {
      s.setTimestamp(1, Timestamp.from(now));
      s.executeUpdate();
    }
  }

  /** The highest ordering written before {@code before}; -1 if no mark is that old. */
  static long cutoff(Connection c, Instant before) throws SQLException {
    try (PreparedStatement s =
        c.prepareStatement("select max(ordering) from journal_mark where taken_at <= ?")) {
      s.setTimestamp(1, Timestamp.from(before));
      try (ResultSet rs = s.executeQuery()) {
        rs.next();
        long cutoff = rs.getLong(1);
        return rs.wasNull() ? -1 : cutoff;
      }
    }
  }

  /** One mark: the journal's highest ordering at a time. */
  record Mark(Instant takenAt, long ordering) {}

  /** The oldest mark kept, or the newest ({@code newest}); null when there is none. */
  static Mark edge(Connection c, boolean newest) throws SQLException {
    try (Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery(
                "select taken_at, ordering from journal_mark order by taken_at"
                    + (newest ? " desc" : "")
                    + " fetch first 1 rows only")) {
      return rs.next() ? new Mark(rs.getTimestamp(1).toInstant(), rs.getLong(2)) : null;
    }
  }

  /** Keeps the newest mark at or before {@code before} and every later one. */
  static void prune(Connection c, Instant before) throws SQLException {
    try (PreparedStatement s =
        c.prepareStatement(
            "delete from journal_mark where taken_at < (select max(taken_at) from journal_mark"
                + " where taken_at <= ?)")) {
      s.setTimestamp(1, Timestamp.from(before));
      s.executeUpdate();
    }
  }

  static long removedThrough(Connection c) throws SQLException {
    try (Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery("select removed_through from journal_retention where id = 1")) {
      return rs.next() ? rs.getLong(1) : 0;
    }
  }

  static void removedThrough(Connection c, long ordering) throws SQLException {
    try (PreparedStatement s =
        c.prepareStatement(
            "update journal_retention set removed_through = ? where id = 1"
                + " and removed_through < ?")) {
      s.setLong(1, ordering);
      s.setLong(2, ordering);
      s.executeUpdate();
    }
  }
}
