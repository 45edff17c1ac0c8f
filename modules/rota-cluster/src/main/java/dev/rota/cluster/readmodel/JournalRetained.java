package dev.rota.cluster.readmodel;

import dev.rota.cluster.journal.JournalPartitions;

/**
 * What retention removed from the journal (decision 124), for the events stream's 410 {@code gone}:
 * the highest ordering it may have removed (0: nothing), and the oldest ordering the stream can
 * still serve above it (the next one when none is held).
 */
public record JournalRetained(long removedThrough, long oldestRetained) {
  private static final String SQL =
      "select r.removed_through, (select min(j.ordering) from event_journal j"
          + " where j.ordering > r.removed_through and j.writer <> '"
          + JournalPartitions.CARRIED_WRITER
          + "') from journal_retention r where r.id = 1";

  static JournalRetained read(ReadQueries queries) {
    return queries.query(
        "journalRetained",
        SQL,
        s -> {},
        rs -> {
          if (!rs.next()) {
            return new JournalRetained(0, 1);
          }
          long removed = rs.getLong(1);
          long oldest = rs.getLong(2);
          return new JournalRetained(removed, rs.wasNull() ? removed + 1 : oldest);
        });
  }
}
