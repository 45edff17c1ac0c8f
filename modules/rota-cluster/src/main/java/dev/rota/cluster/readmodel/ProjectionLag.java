package dev.rota.cluster.readmodel;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;

/**
 * How far the read-model projection trails the journal, for {@code /metrics}. Only the projection
 * (the alternative writer, decision 75) can trail: the journal's sink writes the read model in the
 * events' transaction, and then no tags are sampled.
 *
 * @param events journal events the projection has not applied yet
 * @param oldestWrittenAt when the oldest of them was written, null when there is none
 */
public record ProjectionLag(long events, Instant oldestWrittenAt) {

  /** How long the oldest unapplied event has waited at {@code now}; zero when none. */
  public Duration age(Instant now) {
    if (oldestWrittenAt == null || oldestWrittenAt.isAfter(now)) {
      return Duration.ZERO;
    }
    return Duration.between(oldestWrittenAt, now);
  }

  /**
   * How far the read-model projection trails the journal: events of the agent tags it has not
   * applied yet, and the write time of the oldest of them (null when none). One range scan of the
   * tag index per partition, over the unprojected events only.
   *
   * @param projectionName the projection's name in the offset store
   * @param tags the projection keys, one tag per partition
   */
  public static ProjectionLag read(
      DataSource dataSource, String projectionName, List<String> tags) {
    try (Connection connection = dataSource.getConnection()) {
      connection.setAutoCommit(false);
      try {
        Map<String, Long> offsets = new HashMap<>();
        try (PreparedStatement statement =
            connection.prepareStatement(
                "select projection_key, current_offset from pekko_projection_offset_store"
                    + " where projection_name = ?")) {
          statement.setString(1, projectionName);
          try (ResultSet rs = statement.executeQuery()) {
            while (rs.next()) {
              offsets.put(rs.getString(1), parseOffset(rs.getString(2)));
            }
          }
        }
        long events = 0;
        Long oldest = null;
        try (PreparedStatement statement =
            connection.prepareStatement(
                "select count(*), min(j.write_timestamp) from event_tag t"
                    + " join event_journal j on j.ordering = t.event_id"
                    + " where t.tag = ? and t.event_id > ?")) {
          for (String tag : tags) {
            statement.setString(1, tag);
            statement.setLong(2, offsets.getOrDefault(tag, 0L));
            try (ResultSet rs = statement.executeQuery()) {
              if (rs.next()) {
                events += rs.getLong(1);
                long min = rs.getLong(2);
                if (!rs.wasNull() && (oldest == null || min < oldest)) {
                  oldest = min;
                }
              }
            }
          }
        }
        return new ProjectionLag(events, oldest == null ? null : Instant.ofEpochMilli(oldest));
      } finally {
        connection.rollback();
      }
    } catch (SQLException e) {
      throw new ReadModelException("read model query projectionLag failed", e);
    }
  }

  private static long parseOffset(String offset) {
    try {
      return Long.parseLong(offset);
    } catch (NumberFormatException e) {
      return 0L;
    }
  }
}
