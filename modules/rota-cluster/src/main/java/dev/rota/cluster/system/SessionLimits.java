package dev.rota.cluster.system;

import com.typesafe.config.Config;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;

/**
 * The bounds every database session of a node runs under ({@code rota.db.session}): how long a
 * statement may wait for a lock, how long a transaction may sit idle, how long one statement may
 * run, and how long the driver waits for the server to answer at all.
 *
 * <p>They exist for the node that stops without dying (a long GC pause, a paused VM, SIGSTOP): its
 * open transaction keeps its row locks until the server ends it, and every other node that writes
 * one of those rows (an agent that moved away from it, the same journal rows) waits behind it. With
 * {@code idle_in_transaction_session_timeout} the server ends a frozen node's transaction within
 * seconds, before the cluster has even downed the node and moved its agents; with {@code
 * lock_timeout} a writer that still meets a lock gives up and its write fails cleanly (the
 * transaction is rolled back whole, the agent's command answered with an error) instead of waiting
 * for as long as the other node is frozen. docs/failover.md explains the choice of values.
 *
 * <p>Applied on PostgreSQL only (as driver properties: {@code options}, {@code socketTimeout},
 * {@code tcpKeepAlive}); the embedded H2 file belongs to one process, which cannot be frozen apart
 * from its own node.
 */
public record SessionLimits(
    Duration lockTimeout,
    Duration idleInTransactionTimeout,
    Duration statementTimeout,
    Duration socketTimeout,
    boolean tcpKeepAlive) {

  /** The limits under {@code rota.db.session} of a node's configuration. */
  public static SessionLimits from(Config config) {
    Config c = config.getConfig("rota.db.session");
    return new SessionLimits(
        c.getDuration("lock-timeout"),
        c.getDuration("idle-in-transaction-timeout"),
        c.getDuration("statement-timeout"),
        c.getDuration("socket-timeout"),
        c.getBoolean("tcp-keepalive"));
  }

  /** Whether a JDBC URL names a PostgreSQL database, the only one these limits apply to. */
  public static boolean appliesTo(String jdbcUrl) {
    return jdbcUrl != null && jdbcUrl.startsWith("jdbc:postgresql:");
  }

  /**
   * The PostgreSQL driver's connection properties that set these limits on every session: the
   * server-side timeouts through {@code options}, the client's through {@code socketTimeout} (whole
   * seconds, at least one).
   */
  public Map<String, String> postgresProperties() {
    Map<String, String> properties = new LinkedHashMap<>();
    properties.put(
        "options",
        "-c lock_timeout="
            + lockTimeout.toMillis()
            + " -c idle_in_transaction_session_timeout="
            + idleInTransactionTimeout.toMillis()
            + " -c statement_timeout="
            + statementTimeout.toMillis());
    properties.put("socketTimeout", Long.toString(Math.max(1, socketTimeout.toSeconds())));
    properties.put("tcpKeepAlive", Boolean.toString(tcpKeepAlive));
    return properties;
  }

  /** {@link #postgresProperties} for a pool or {@code DriverManager}. */
  public Properties asProperties() {
    Properties properties = new Properties();
    properties.putAll(postgresProperties());
    return properties;
  }
}
