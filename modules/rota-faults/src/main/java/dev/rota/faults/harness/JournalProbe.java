package dev.rota.faults.harness;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What the suite reads of the partitioned PostgreSQL journal (decision 124) from the outside: its
 * partitions and their state, a concurrent detach waiting for readers, and one setup step for runs
 * that want retention to drop partitions within minutes.
 */
public final class JournalProbe {
  private static final Pattern BOUNDS =
      Pattern.compile("FROM \\((MINVALUE|'?(-?\\d+)'?)\\) TO \\((MAXVALUE|'?(-?\\d+)'?)\\)");

  /**
   * One partition; {@code detachPending}: a {@code DETACH … CONCURRENTLY} began and did not end.
   */
  public record Partition(String name, long from, long to, boolean detachPending) {}

  private JournalProbe() {}

  /** The journal's partitions, lowest orderings first. */
  public static List<Partition> partitions(Connection c) throws SQLException {
    List<Partition> found = new ArrayList<>();
    try (Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery(
                "select c.relname, pg_get_expr(c.relpartbound, c.oid), i.inhdetachpending"
                    + " from pg_inherits i join pg_class c on c.oid = i.inhrelid"
                    + " where i.inhparent = 'event_journal'::regclass")) {
      while (rs.next()) {
        Matcher m = BOUNDS.matcher(rs.getString(2));
        if (!m.find()) {
          throw new SQLException("unexpected bound " + rs.getString(2));
        }
        long from = m.group(2) == null ? Long.MIN_VALUE : Long.parseLong(m.group(2));
        long to = m.group(4) == null ? Long.MAX_VALUE : Long.parseLong(m.group(4));
        found.add(new Partition(rs.getString(1), from, to, rs.getBoolean(3)));
      }
    }
    found.sort(java.util.Comparator.comparingLong(Partition::to));
    return found;
  }

  /** Whether a table of that name exists (attached, pending or detached). */
  public static boolean exists(Connection c, String table) throws SQLException {
    try (PreparedStatement s = c.prepareStatement("select to_regclass(?) is not null")) {
      s.setString(1, table);
      try (ResultSet rs = s.executeQuery()) {
        rs.next();
        return rs.getBoolean(1);
      }
    }
  }

  /** The backends running a {@code DETACH PARTITION … CONCURRENTLY} of the journal now. */
  public static int detachBackends(Connection c) throws SQLException {
    try (Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery(
                "select count(*) from pg_stat_activity where pid <> pg_backend_pid()"
                    + " and state = 'active' and query ilike '%detach partition%concurrently%'")) {
      rs.next();
      return rs.getInt(1);
    }
  }

  /**
   * A fresh database's journal starts with V13's partitions of 100,000 orderings each, which at a
   * test's rate would take an hour to leave; this moves the ordering sequence past them (a gap in
   * orderings, as a rolled-back insert leaves) and waits until the node's maintenance has created
   * partitions of its configured size above, so that every event the run writes lands in those.
   * Call it before the run writes (registering agents writes). Returns the first ordering used.
   */
  public static long skipInitialPartitions(Connection c, Duration timeout)
      throws SQLException, InterruptedException {
    List<Partition> initial = partitions(c);
    long top = initial.get(initial.size() - 1).to();
    try (PreparedStatement s =
        c.prepareStatement("select setval('event_journal_ordering_seq', ?)")) {
      s.setLong(1, top);
      s.execute();
    }
    long deadline = System.nanoTime() + timeout.toNanos();
    while (partitions(c).stream().noneMatch(p -> p.from() >= top)) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(
            "the journal's maintenance created no partition above " + top + " within " + timeout);
      }
      Thread.sleep(100);
    }
    return top + 1;
  }
}
