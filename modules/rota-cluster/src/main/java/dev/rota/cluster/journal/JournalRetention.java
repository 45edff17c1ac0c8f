package dev.rota.cluster.journal;

import dev.rota.cluster.journal.JournalPartitions.Partition;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One run of journal retention (decision 124): removes the events older than {@code retention} and
 * older than their entity's latest snapshot. On PostgreSQL it drops whole partitions, after
 * settling every persistence id that still needs an event in the partition (the entity is asked to
 * snapshot, or its few events are copied forward); on H2 it deletes covered rows in batches. It
 * also keeps partitions ahead of the writes and records the marks that tell how old an ordering is.
 *
 * <p>Blocking: runs on its caller's thread, which must be one that may wait (the maintenance
 * singleton runs it on the blocking dispatcher). The journal knows nothing of entities: which
 * persistence ids can be asked to snapshot, and how, is {@link Snapshots}.
 */
public final class JournalRetention {
  private static final Logger log = LoggerFactory.getLogger(JournalRetention.class);

  /** The knobs under {@code rota.journal}. */
  public record Settings(
      Duration retention,
      int partitionsAhead,
      long partitionMinRows,
      long partitionMaxRows,
      Duration snapshotWait,
      int snapshotParallelism,
      int deleteBatch) {}

  /** Asks entities to snapshot. */
  public interface Snapshots {
    /** Whether the entity of {@code persistenceId} can be asked (else its events are copied). */
    boolean canAsk(String persistenceId);

    /** Asks the entity of {@code persistenceId} to snapshot now; does not wait for it. */
    void ask(String persistenceId);

    /**
     * How long after its last event the entity of {@code persistenceId} is over for good (a call
     * past its deadline and its answer's retention), so its events may go without a snapshot; empty
     * if it never is.
     */
    default Optional<Duration> overAfter(String persistenceId) {
      return Optional.empty();
    }
  }

  /** What a run did. {@code waiting}: ids whose snapshot had not come when the run gave up. */
  public record Run(
      long rowsRemoved,
      long bytesRemoved,
      int partitionsDropped,
      long removedThrough,
      int snapshotsAsked,
      int eventsCarried,
      int entitiesForgotten,
      List<String> waiting) {}

  /** A persistence id with events in a partition after its latest snapshot. */
  record Pinned(String persistenceId, long highest, long snapshot) {}

  private static final String PINNED =
      "select j.persistence_id, max(j.sequence_number), count(*),"
          + " coalesce((select max(s.sequence_number) from snapshot s"
          + " where s.persistence_id = j.persistence_id), 0)"
          + " from %s j group by j.persistence_id";

  private static final String CARRY =
      "insert into event_journal (persistence_id, sequence_number, deleted, writer,"
          + " write_timestamp, adapter_manifest, event_ser_id, event_ser_manifest, event_payload,"
          + " meta_ser_id, meta_ser_manifest, meta_payload)"
          + " select persistence_id, sequence_number, deleted, '"
          + JournalPartitions.CARRIED_WRITER
          + "', write_timestamp, adapter_manifest, event_ser_id, event_ser_manifest,"
          + " event_payload, meta_ser_id, meta_ser_manifest, meta_payload"
          + " from %s where persistence_id = ? and sequence_number > ? order by sequence_number";

  private static final String COVERED_H2 =
      "select ordering, octet_length(event_payload) from event_journal j where j.ordering <= ?"
          + " and j.sequence_number <= coalesce((select max(s.sequence_number) from snapshot s"
          + " where s.persistence_id = j.persistence_id), 0)"
          + " order by j.ordering fetch first ? rows only";

  private final DataSource dataSource;
  private final Settings settings;
  private final Snapshots snapshots;

  public JournalRetention(DataSource dataSource, Settings settings, Snapshots snapshots) {
    this.dataSource = dataSource;
    this.settings = settings;
    this.snapshots = snapshots;
  }

  /** One run as of {@code now}. */
  public Run run(Instant now) throws SQLException, InterruptedException {
    try (Connection c = dataSource.getConnection()) {
      c.setAutoCommit(true);
      boolean partitioned = JournalPartitions.partitioned(c);
      if (partitioned) {
        JournalPartitions.finishInterrupted(c);
      }
      JournalMarks.mark(c, now);
      if (partitioned) {
        JournalPartitions.ensureAhead(
            c, settings.partitionsAhead(), PartitionSizing.size(c, now, settings));
      }
      long cutoff = JournalMarks.cutoff(c, now.minus(settings.retention()));
      Run run = partitioned ? dropPartitions(c, cutoff) : deleteRows(c, cutoff);
      JournalMarks.prune(c, now.minus(settings.retention()));
      return run;
    }
  }

  // ---- PostgreSQL: whole partitions ----

  private Run dropPartitions(Connection c, long cutoff) throws SQLException, InterruptedException {
    long rows = 0;
    long bytes = 0;
    int dropped = 0;
    int asked = 0;
    int carried = 0;
    int forgotten = 0;
    List<String> waiting = List.of();
    List<Partition> partitions = JournalPartitions.list(c);
    // The last partition is never dropped, whatever the marks say: inserts need one.
    for (int i = 0; i < partitions.size() - 1; i++) {
      Partition partition = partitions.get(i);
      if (cutoff < 0 || !partition.endsAtOrBelow(cutoff)) {
        break;
      }
      Settled settled = settle(c, partition);
      asked += settled.asked();
      if (!settled.waiting().isEmpty()) {
        waiting = settled.waiting();
        log.warn(
            "journal partition {} stays until the next run: no snapshot yet of {} entities, such"
                + " as {}",
            partition.name(),
            waiting.size(),
            waiting.get(0));
        break;
      }
      carried += settled.carried();
      forgotten += settled.forgotten();
      long partitionBytes = JournalPartitions.bytes(c, partition);
      try (PreparedStatement s =
          c.prepareStatement("delete from event_tag where event_id >= ? and event_id < ?")) {
        s.setLong(1, partition.from());
        s.setLong(2, partition.to());
        s.executeUpdate();
      }
      JournalMarks.removedThrough(c, partition.to() - 1);
      JournalPartitions.detachAndDrop(c, partition);
      rows += settled.rows();
      bytes += partitionBytes;
      dropped++;
      log.info(
          "dropped journal partition {} ({} rows, {} bytes)",
          partition.name(),
          settled.rows(),
          partitionBytes);
    }
    return new Run(
        rows, bytes, dropped, JournalMarks.removedThrough(c), asked, carried, forgotten, waiting);
  }

  private record Settled(long rows, int asked, int carried, int forgotten, List<String> waiting) {}

  /**
   * Makes sure no entity needs an event of {@code partition}: those that can be asked are asked to
   * snapshot, and waited for; the others' events after their latest snapshot are copied into the
   * newest partition, in the transaction that deletes them here.
   */
  private Settled settle(Connection c, Partition partition)
      throws SQLException, InterruptedException {
    long rows = 0;
    List<Pinned> pinned = new ArrayList<>();
    for (Map.Entry<Pinned, Long> entry : scan(c, partition).entrySet()) {
      rows += entry.getValue();
      Pinned p = entry.getKey();
      if (p.highest() > p.snapshot()) {
        pinned.add(p);
      }
    }
    List<Pinned> toCarry = new ArrayList<>();
    List<Pinned> toWait = new ArrayList<>();
    int forgotten = 0;
    for (Pinned p : pinned) {
      if (snapshots.canAsk(p.persistenceId())) {
        toWait.add(p);
      } else if (over(c, p)) {
        forgotten++;
      } else {
        toCarry.add(p);
      }
    }
    // A few hundred at a time: each asked agent that sleeps is recovered to answer.
    int size = Math.max(1, settings.snapshotParallelism());
    for (int from = 0; from < toWait.size(); from += size) {
      List<Pinned> chunk = toWait.subList(from, Math.min(toWait.size(), from + size));
      chunk.forEach(p -> snapshots.ask(p.persistenceId()));
      List<String> waiting = awaitSnapshots(c, chunk);
      if (!waiting.isEmpty()) {
        return new Settled(rows, from + chunk.size(), 0, 0, waiting);
      }
    }
    int carried = carry(c, partition, toCarry);
    return new Settled(rows, toWait.size(), carried, forgotten, List.of());
  }

  /**
   * Whether the entity is over for good: it is over some time after its last event, and its last
   * event is in this partition, every event of which is older than the retention, which is longer.
   */
  private boolean over(Connection c, Pinned p) throws SQLException {
    Optional<Duration> after = snapshots.overAfter(p.persistenceId());
    if (after.isEmpty() || after.get().compareTo(settings.retention()) > 0) {
      return false;
    }
    try (PreparedStatement s =
        c.prepareStatement(
            "select coalesce(max(sequence_number), 0) from event_journal where persistence_id = ?")) {
      s.setString(1, p.persistenceId());
      try (ResultSet rs = s.executeQuery()) {
        rs.next();
        return rs.getLong(1) <= p.highest();
      }
    }
  }

  /** Every persistence id of the partition, with its rows there. */
  private static Map<Pinned, Long> scan(Connection c, Partition partition) throws SQLException {
    Map<Pinned, Long> found = new java.util.LinkedHashMap<>();
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(String.format(PINNED, partition.name()))) {
      while (rs.next()) {
        found.put(new Pinned(rs.getString(1), rs.getLong(2), rs.getLong(4)), rs.getLong(3));
      }
    }
    return found;
  }

  /** Waits until each has a snapshot at or past its highest event here; returns those without. */
  private List<String> awaitSnapshots(Connection c, List<Pinned> pinned)
      throws SQLException, InterruptedException {
    List<Pinned> left = new ArrayList<>(pinned);
    long deadline = System.nanoTime() + settings.snapshotWait().toNanos();
    try (PreparedStatement s =
        c.prepareStatement(
            "select coalesce(max(sequence_number), 0) from snapshot where persistence_id = ?")) {
      while (!left.isEmpty()) {
        left.removeIf(
            p -> {
              try {
                s.setString(1, p.persistenceId());
                try (ResultSet rs = s.executeQuery()) {
                  rs.next();
                  return rs.getLong(1) >= p.highest();
                }
              } catch (SQLException e) {
                throw new IllegalStateException(e);
              }
            });
        if (left.isEmpty() || System.nanoTime() > deadline) {
          break;
        }
        Thread.sleep(100);
      }
    }
    return left.stream().map(Pinned::persistenceId).toList();
  }

  private static int carry(Connection c, Partition partition, List<Pinned> pinned)
      throws SQLException {
    if (pinned.isEmpty()) {
      return 0;
    }
    int carried = 0;
    c.setAutoCommit(false);
    try (PreparedStatement copy = c.prepareStatement(String.format(CARRY, partition.name()));
        PreparedStatement delete =
            c.prepareStatement(
                "delete from "
                    + partition.name()
                    + " where persistence_id = ? and sequence_number > ?")) {
      for (Pinned p : pinned) {
        copy.setString(1, p.persistenceId());
        copy.setLong(2, p.snapshot());
        carried += copy.executeUpdate();
        delete.setString(1, p.persistenceId());
        delete.setLong(2, p.snapshot());
        delete.executeUpdate();
      }
      c.commit();
    } catch (SQLException e) {
      c.rollback();
      throw e;
    } finally {
      c.setAutoCommit(true);
    }
    return carried;
  }

  // ---- H2: rows in batches ----

  private Run deleteRows(Connection c, long cutoff) throws SQLException {
    long rows = 0;
    long bytes = 0;
    if (cutoff >= 0) {
      while (true) {
        List<Long> orderings = new ArrayList<>();
        try (PreparedStatement s = c.prepareStatement(COVERED_H2)) {
          s.setLong(1, cutoff);
          s.setInt(2, settings.deleteBatch());
          try (ResultSet rs = s.executeQuery()) {
            while (rs.next()) {
              orderings.add(rs.getLong(1));
              bytes += rs.getLong(2);
            }
          }
        }
        if (orderings.isEmpty()) {
          break;
        }
        try (PreparedStatement d =
            c.prepareStatement("delete from event_journal where ordering = ?")) {
          for (long ordering : orderings) {
            d.setLong(1, ordering);
            d.addBatch();
          }
          d.executeBatch();
        }
        rows += orderings.size();
        if (orderings.size() < settings.deleteBatch()) {
          break;
        }
      }
      JournalMarks.removedThrough(c, cutoff);
    }
    return new Run(rows, bytes, 0, JournalMarks.removedThrough(c), 0, 0, 0, List.of());
  }
}
