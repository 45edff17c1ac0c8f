package dev.rota.bench.postgres;

import dev.rota.bench.metrics.ProcessTreeCpu;
import dev.rota.bench.system.BenchDatabase;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The one PostgreSQL a bench run starts for itself (embedded, as the tests do). Every trial gets a
 * database of its own, created from {@code template0} and dropped afterwards, so systems never see
 * each other's tables or leftovers.
 */
public final class BenchPostgres implements AutoCloseable {

  /**
   * Durable commits by default. zonky starts PostgreSQL with {@code -F} (fsync off) and {@code
   * synchronous_commit=off}, which suits tests but would make "durably accepted" meaningless and
   * flatter whoever commits most; {@code --pg fsync=off --pg synchronous_commit=off} gets that
   * back.
   */
  public static final Map<String, String> DEFAULT_SETTINGS = defaultSettings();

  private static Map<String, String> defaultSettings() {
    Map<String, String> settings = new LinkedHashMap<>();
    settings.put("fsync", "on");
    settings.put("synchronous_commit", "on");
    settings.put("max_connections", "300");
    return java.util.Collections.unmodifiableMap(settings);
  }

  private static final Pattern DATABASE_NAME = Pattern.compile("[a-z][a-z0-9_]{0,62}");
  private static final String USER = "postgres";

  private final EmbeddedPostgres postgres;
  private final Map<String, String> settings;
  private final long postmasterPid;

  private BenchPostgres(EmbeddedPostgres postgres, Map<String, String> settings) {
    this.postgres = postgres;
    this.settings = settings;
    this.postmasterPid = findPostmasterPid();
  }

  /** Starts PostgreSQL with {@link #DEFAULT_SETTINGS} overlaid by {@code overrides}. */
  public static BenchPostgres start(Map<String, String> overrides) throws IOException {
    Map<String, String> settings = new LinkedHashMap<>(DEFAULT_SETTINGS);
    settings.putAll(overrides);
    EmbeddedPostgres.Builder builder = EmbeddedPostgres.builder();
    settings.forEach(builder::setServerConfig);
    return new BenchPostgres(builder.start(), java.util.Collections.unmodifiableMap(settings));
  }

  /** The postmaster's process id, or -1 if it could not be found. */
  public long postmasterPid() {
    return postmasterPid;
  }

  /**
   * CPU milliseconds PostgreSQL has used so far, the postmaster and all its processes (backends,
   * background workers, those already ended included; {@link ProcessTreeCpu}); NaN where it cannot
   * be read.
   */
  public double cpuMillis() {
    return postmasterPid < 0 ? Double.NaN : ProcessTreeCpu.cpuMillis(postmasterPid);
  }

  /**
   * The first line of {@code postmaster.pid} in the data directory (zonky does not expose the
   * directory, the server does: {@code SHOW data_directory}); failing that, the parent of a
   * backend.
   */
  private long findPostmasterPid() {
    try {
      String line = Files.readAllLines(Path.of(show("data_directory"), "postmaster.pid")).get(0);
      return Long.parseLong(line.trim());
    } catch (IOException | SQLException | RuntimeException e) {
      // fall through to the backend's parent
    }
    try (Connection c = admin();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT pg_backend_pid()")) {
      rs.next();
      return ProcessHandle.of(rs.getLong(1))
          .flatMap(ProcessHandle::parent)
          .map(ProcessHandle::pid)
          .orElse(-1L);
    } catch (SQLException | RuntimeException e) {
      return -1;
    }
  }

  public Map<String, String> settings() {
    return settings;
  }

  /** A server setting as the running server reports it ({@code SHOW}). */
  public String show(String setting) throws SQLException {
    if (!setting.matches("[a-z_]+")) {
      throw new IllegalArgumentException(setting);
    }
    try (Connection c = admin();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SHOW " + setting)) {
      rs.next();
      return rs.getString(1);
    }
  }

  public String version() throws SQLException {
    try (Connection c = admin();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SHOW server_version")) {
      rs.next();
      return rs.getString(1);
    }
  }

  /** Creates an empty database; {@code name} is lower-case letters, digits and underscores. */
  public BenchDatabase createDatabase(String name) throws SQLException {
    if (!DATABASE_NAME.matcher(name).matches()) {
      throw new IllegalArgumentException("not a safe database name: " + name);
    }
    try (Connection c = admin();
        Statement s = c.createStatement()) {
      s.execute("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
      s.execute("CREATE DATABASE " + name + " TEMPLATE template0");
    }
    return new BenchDatabase("localhost", postgres.getPort(), name, USER, USER);
  }

  /** Drops a trial's database, disconnecting anything a system left behind. */
  public void dropDatabase(BenchDatabase database) throws SQLException {
    try (Connection c = admin();
        Statement s = c.createStatement()) {
      s.execute("DROP DATABASE IF EXISTS " + database.name() + " WITH (FORCE)");
    }
  }

  private Connection admin() throws SQLException {
    return postgres.getPostgresDatabase().getConnection();
  }

  @Override
  public void close() throws IOException {
    postgres.close();
  }
}
