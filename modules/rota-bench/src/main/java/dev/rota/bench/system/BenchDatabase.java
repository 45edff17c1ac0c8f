package dev.rota.bench.system;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;

/** A database created on the bench's PostgreSQL for one trial. */
public record BenchDatabase(String host, int port, String name, String user, String password) {

  public String jdbcUrl() {
    return "jdbc:postgresql://" + host + ":" + port + "/" + name;
  }

  /** The libpq form, for clients outside the JVM such as Node's {@code pg}. */
  public String postgresUrl() {
    return "postgres://" + user + ":" + password + "@" + host + ":" + port + "/" + name;
  }

  public Connection connect() throws SQLException {
    return DriverManager.getConnection(jdbcUrl(), user, password);
  }
}
