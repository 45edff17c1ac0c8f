package dev.rota.faults.soak;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.OffsetDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What the soak watches besides the clients' history: every {@link #PERIOD_MS} the database's size,
 * the journal's rows, the dead tuples of its tables and the journal's partitions (one seen before
 * and gone now was dropped); and the node's heap after each collection, from the GC log the harness
 * has every node write ({@code gc-<i>-<start>.log}).
 */
final class SoakSampler implements AutoCloseable {
  static final long PERIOD_MS = 15_000;

  /** One look at the database. */
  record Sample(
      long atMs,
      long databaseBytes,
      long journalRows,
      long deadTuples,
      int partitions,
      int droppedSoFar) {}

  /** One collection: when it ended and the heap it left. */
  record Collection(long atMs, long heapAfterBytes) {}

  private static final Pattern GC_LINE =
      Pattern.compile(
          "^\\[([^\\]]+)\\]\\[[^\\]]+\\] GC\\(\\d+\\) Pause .*? (\\d+)([KMG])->(\\d+)([KMG])\\(");
  private static final DateTimeFormatter GC_TIME =
      DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSSZ");

  private final String jdbcUrl;
  private final List<Sample> samples = new ArrayList<>();
  private final Set<String> seen = new HashSet<>();
  private final Set<String> dropped = new HashSet<>();
  private final Thread thread;
  private volatile boolean running = true;
  private volatile String lastError;

  SoakSampler(String jdbcUrl) {
    this.jdbcUrl = jdbcUrl;
    thread = new Thread(this::loop, "soak-sampler");
    thread.setDaemon(true);
    thread.start();
  }

  synchronized List<Sample> samples() {
    return List.copyOf(samples);
  }

  /** The last sampling failure, if sampling fails (the report shows it). */
  String lastError() {
    return lastError;
  }

  private void loop() {
    while (running) {
      try (Connection c = DriverManager.getConnection(jdbcUrl, "postgres", "")) {
        while (running) {
          Sample sample = sample(c);
          synchronized (this) {
            samples.add(sample);
          }
          Thread.sleep(PERIOD_MS);
        }
      } catch (SQLException e) {
        lastError = e.toString();
        pause();
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  private Sample sample(Connection c) throws SQLException {
    long at = System.currentTimeMillis();
    long size = single(c, "select pg_database_size(current_database())");
    long rows = single(c, "select count(*) from event_journal");
    long dead = single(c, "select coalesce(sum(n_dead_tup), 0) from pg_stat_user_tables");
    Set<String> now = new HashSet<>();
    try (Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery(
                "select c.relname from pg_inherits i join pg_class c on c.oid = i.inhrelid"
                    + " where i.inhparent = 'event_journal'::regclass")) {
      while (rs.next()) {
        now.add(rs.getString(1));
      }
    }
    for (String name : seen) {
      if (!now.contains(name)) {
        dropped.add(name);
      }
    }
    seen.addAll(now);
    seen.removeAll(dropped);
    return new Sample(at, size, rows, dead, now.size(), dropped.size());
  }

  private static long single(Connection c, String sql) throws SQLException {
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  /** Every collection in the node's GC logs under {@code dir} ({@code gc-*.log}), oldest first. */
  static List<Collection> collections(Path dir) {
    List<Collection> found = new ArrayList<>();
    try (var files = Files.list(dir)) {
      for (Path file : files.filter(f -> f.getFileName().toString().startsWith("gc-")).toList()) {
        for (String line : Files.readAllLines(file)) {
          Matcher m = GC_LINE.matcher(line);
          if (m.find()) {
            long at = OffsetDateTime.parse(m.group(1), GC_TIME).toInstant().toEpochMilli();
            found.add(new Collection(at, bytes(m.group(4), m.group(5))));
          }
        }
      }
    } catch (IOException e) {
      return found;
    }
    found.sort(java.util.Comparator.comparingLong(Collection::atMs));
    return found;
  }

  private static long bytes(String amount, String unit) {
    long n = Long.parseLong(amount);
    return switch (unit) {
      case "G" -> n << 30;
      case "M" -> n << 20;
      default -> n << 10;
    };
  }

  private void pause() {
    try {
      Thread.sleep(1000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      running = false;
    }
  }

  @Override
  public void close() {
    running = false;
    thread.interrupt();
  }
}
