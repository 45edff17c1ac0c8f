package dev.rota.cluster.readmodel;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;

/**
 * Portable JDBC helpers for {@code timestamp with time zone} columns: H2 2.x and the PostgreSQL
 * driver both map them to {@link OffsetDateTime}.
 */
final class Sql {
  private Sql() {}

  static void setInstant(PreparedStatement statement, int index, Instant value)
      throws SQLException {
    if (value == null) {
      statement.setNull(index, Types.TIMESTAMP_WITH_TIMEZONE);
    } else {
      statement.setObject(index, OffsetDateTime.ofInstant(value, ZoneOffset.UTC));
    }
  }

  static Instant getInstant(ResultSet rs, String column) throws SQLException {
    return getInstant(rs, rs.findColumn(column));
  }

  /** As {@link #getInstant(ResultSet, String)}, by position (no name lookup per row). */
  static Instant getInstant(ResultSet rs, int column) throws SQLException {
    OffsetDateTime value = rs.getObject(column, OffsetDateTime.class);
    return value == null ? null : value.toInstant();
  }

  /** Cuts text to a column's length, so one oversized value cannot stall the writer. */
  static String fit(String value, int maxLength) {
    if (value == null || value.length() <= maxLength) {
      return value;
    }
    return value.substring(0, maxLength);
  }
}
