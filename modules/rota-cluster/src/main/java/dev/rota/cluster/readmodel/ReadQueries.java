package dev.rota.cluster.readmodel;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import javax.sql.DataSource;

/** One read of the read model on a pooled connection; a failure is a {@link ReadModelException}. */
final class ReadQueries {
  @FunctionalInterface
  interface Binder {
    void bind(PreparedStatement statement) throws SQLException;
  }

  @FunctionalInterface
  interface Reader<T> {
    T read(ResultSet rs) throws SQLException;
  }

  private final DataSource dataSource;

  ReadQueries(DataSource dataSource) {
    this.dataSource = dataSource;
  }

  <T> T query(String what, String sql, Binder binder, Reader<T> reader) {
    try (Connection connection = dataSource.getConnection()) {
      // Read-only and without autocommit, so PostgreSQL streams large results by fetch size.
      connection.setAutoCommit(false);
      try (PreparedStatement statement = connection.prepareStatement(sql)) {
        binder.bind(statement);
        try (ResultSet rs = statement.executeQuery()) {
          return reader.read(rs);
        }
      } finally {
        connection.rollback();
      }
    } catch (SQLException e) {
      throw new ReadModelException("read model query " + what + " failed", e);
    }
  }
}
