package dev.rota.cluster.journal;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The partitions of PostgreSQL's {@code event_journal}, by range of {@code ordering} (migration
 * V13, decision 124): listing them, creating the next ones ahead of the writes, and removing an old
 * one without blocking the journal. H2's journal is one table and has none.
 *
 * <p>A partition is created standalone and then attached, so the journal is only ever locked in
 * {@code SHARE UPDATE EXCLUSIVE} mode, which writes and reads pass; it is removed by {@code DETACH
 * PARTITION … CONCURRENTLY}, the same lock, and a {@code DROP} of the detached table alone.
 */
public final class JournalPartitions {
  private static final Logger log = LoggerFactory.getLogger(JournalPartitions.class);

  /** The writer of events retention copied forward: the events stream does not show them again. */
  public static final String CARRIED_WRITER = "rota-retention";

  /**
   * The least size of the partitions a writer creates when it found none (the maintenance sizes its
   * own).
   */
  static final long FALLBACK_ROWS = 100_000;

  /**
   * Serializes the creators of partitions: the maintenance singleton and a writer that found none.
   */
  /** At most this many partitions in one call, whatever the horizon asks. */
  private static final int MAX_CREATED = 16;

  private static final long CREATE_LOCK = 0x726f74615f6a706cL;

  private static final Pattern BOUNDS =
      Pattern.compile("FROM \\((MINVALUE|'?(-?\\d+)'?)\\) TO \\((MAXVALUE|'?(-?\\d+)'?)\\)");
  private static final Pattern NAME = Pattern.compile("event_journal_(p0|\\d+)");

  private static final String LIST =
      "select c.relname, pg_get_expr(c.relpartbound, c.oid) from pg_inherits i"
          + " join pg_class c on c.oid = i.inhrelid"
          + " where i.inhparent = 'event_journal'::regclass";

  /**
   * One partition: orderings {@code from} (inclusive; {@link Long#MIN_VALUE}: none below) to {@code
   * to}.
   */
  public record Partition(String name, long from, long to) {
    /** Whether every ordering of this partition is at or below {@code ordering}. */
    boolean endsAtOrBelow(long ordering) {
      return to - 1 <= ordering;
    }
  }

  private JournalPartitions() {}

  /** Whether this database's journal is partitioned (PostgreSQL after V13). */
  public static boolean partitioned(Connection c) throws SQLException {
    if (!"PostgreSQL".equals(c.getMetaData().getDatabaseProductName())) {
      return false;
    }
    try (Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery("select relkind from pg_class where oid = 'event_journal'::regclass")) {
      return rs.next() && "p".equals(rs.getString(1));
    }
  }

  /** The partitions, lowest orderings first. */
  public static List<Partition> list(Connection c) throws SQLException {
    List<Partition> partitions = new ArrayList<>();
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(LIST)) {
      while (rs.next()) {
        Matcher m = BOUNDS.matcher(rs.getString(2));
        if (!m.find()) {
          throw new SQLException("unexpected bound of " + rs.getString(1) + ": " + rs.getString(2));
        }
        long from = m.group(2) == null ? Long.MIN_VALUE : Long.parseLong(m.group(2));
        long to = m.group(4) == null ? Long.MAX_VALUE : Long.parseLong(m.group(4));
        partitions.add(new Partition(rs.getString(1), from, to));
      }
    }
    partitions.sort(Comparator.comparingLong(Partition::to));
    return partitions;
  }

  /**
   * The size of the partitions a writer creates when a burst used up the ones ahead: twice the
   * newest's (at least {@link #FALLBACK_ROWS}), so a burst that outruns the maintenance again and
   * again makes few partitions, not many of one size.
   */
  static long burstSize(Connection c) throws SQLException {
    List<Partition> partitions = list(c);
    Partition newest = partitions.isEmpty() ? null : partitions.get(partitions.size() - 1);
    boolean sized = newest != null && newest.from() != Long.MIN_VALUE;
    return sized ? Math.max(FALLBACK_ROWS, 2 * (newest.to() - newest.from())) : FALLBACK_ROWS;
  }

  /** The ordering sequence's last value: no row has a higher ordering. */
  static long sequenceValue(Connection c) throws SQLException {
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("select last_value from event_journal_ordering_seq")) {
      rs.next();
      return rs.getLong(1);
    }
  }

  /**
   * Creates partitions of {@code size} orderings above the highest until {@code ahead} of them lie
   * wholly above the sequence's value; returns how many it created. Safe to call from several nodes
   * at once: creators take turns on an advisory lock and look again once they hold it.
   */
  public static int ensureAhead(Connection c, int ahead, long size) throws SQLException {
    return ensureAhead(c, ahead, size, 0, size);
  }

  /**
   * Creates partitions above the highest until {@code ahead} of them lie wholly above the
   * sequence's value and they hold at least {@code horizon} orderings above it; returns how many it
   * created. The first is {@code size} orderings; while the horizon is still short each next one
   * doubles, up to the shortfall and {@code max}. Safe to call from several nodes at once: creators
   * take turns on an advisory lock and look again once they hold it.
   */
  public static int ensureAhead(Connection c, int ahead, long size, long horizon, long max)
      throws SQLException {
    boolean autoCommit = c.getAutoCommit();
    c.setAutoCommit(false);
    int created = 0;
    long reached = 0;
    long sequence = 0;
    try {
      try (PreparedStatement lock = c.prepareStatement("select pg_advisory_xact_lock(?)")) {
        lock.setLong(1, CREATE_LOCK);
        lock.execute();
      }
      long current = sequenceValue(c);
      sequence = current;
      List<Partition> partitions = list(c);
      long top = partitions.isEmpty() ? 0 : partitions.get(partitions.size() - 1).to();
      long above = partitions.stream().filter(p -> p.from() > current).count();
      if (top <= current) {
        // A burst went past every partition: start the next one at the sequence itself.
        top = Math.max(top, current + 1);
      }
      long next = size;
      try (Statement s = c.createStatement()) {
        while ((above < ahead || top - current < horizon) && created < MAX_CREATED) {
          if (created == 0) {
            // The journal's own lock first, not after CREATE TABLE … LIKE's share of it: a
            // concurrent detach waiting for the journal's lockers then never waits for this one.
            s.execute("lock table only event_journal in share update exclusive mode");
          }
          String name = "event_journal_" + top;
          s.execute("create table " + name + " (like event_journal including defaults)");
          s.execute(
              "create unique index "
                  + name
                  + "_pid_seq on "
                  + name
                  + " (persistence_id, sequence_number)");
          s.execute(
              "alter table event_journal attach partition "
                  + name
                  + " for values from ("
                  + top
                  + ") to ("
                  + (top + next)
                  + ")");
          top += next;
          above++;
          created++;
          next = PartitionSizing.sized(horizon - (top - current), next, next, Math.max(next, max));
        }
      }
      c.commit();
      reached = top;
    } catch (SQLException e) {
      c.rollback();
      throw e;
    } finally {
      c.setAutoCommit(autoCommit);
    }
    if (created > 0) {
      log.info(
          "created {} journal partition(s) above the sequence's {}, the first of {} orderings;"
              + " they reach ordering {}",
          created,
          sequence,
          size,
          reached);
    }
    return created;
  }

  /**
   * Detaches {@code partition} without blocking the journal and drops it. Needs an auto-commit
   * connection: a concurrent detach runs as transactions of its own. Waits for transactions that
   * may still read the partition (a long replay) to end.
   */
  static void detachAndDrop(Connection c, Partition partition) throws SQLException {
    try (Statement s = c.createStatement()) {
      s.execute("alter table event_journal detach partition " + partition.name() + " concurrently");
      s.execute("drop table " + partition.name());
    }
  }

  /**
   * Ends what an interrupted removal left: a detach still pending is finished, and a detached table
   * of the journal's is dropped (retention had settled its rows before it started the detach).
   */
  static void finishInterrupted(Connection c) throws SQLException {
    List<String> pending = new ArrayList<>();
    try (Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery(
                "select c.relname from pg_inherits i join pg_class c on c.oid = i.inhrelid"
                    + " where i.inhparent = 'event_journal'::regclass and i.inhdetachpending")) {
      while (rs.next()) {
        pending.add(rs.getString(1));
      }
    }
    try (Statement s = c.createStatement()) {
      for (String name : pending) {
        s.execute("alter table event_journal detach partition " + name + " finalize");
      }
    }
    List<String> detached = new ArrayList<>();
    try (Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery(
                "select c.relname from pg_class c join pg_namespace n on n.oid = c.relnamespace"
                    + " where n.nspname = current_schema() and c.relkind = 'r'"
                    + " and c.relname like 'event\\_journal\\_%' and not c.relispartition")) {
      while (rs.next()) {
        if (NAME.matcher(rs.getString(1)).matches()) {
          detached.add(rs.getString(1));
        }
      }
    }
    try (Statement s = c.createStatement()) {
      for (String name : detached) {
        log.info("dropping {}, detached by an interrupted retention run", name);
        s.execute("drop table " + name);
      }
    }
  }

  /** The partition's size on disk with its indexes and TOAST. */
  static long bytes(Connection c, Partition partition) throws SQLException {
    try (PreparedStatement s = c.prepareStatement("select pg_total_relation_size(?::regclass)")) {
      s.setString(1, partition.name());
      try (ResultSet rs = s.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    }
  }
}
