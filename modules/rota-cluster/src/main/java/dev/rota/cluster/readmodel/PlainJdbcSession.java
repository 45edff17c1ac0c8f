package dev.rota.cluster.readmodel;

import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;
import org.apache.pekko.japi.function.Function;
import org.apache.pekko.projection.jdbc.JdbcSession;

/**
 * One transaction of the projection (the read model's alternative writer, decision 75) on a pooled
 * connection: the projection applies a group of events and stores its offset through the same
 * session, then commits, so the read model and the offset move together (exactly once).
 */
public final class PlainJdbcSession implements JdbcSession {
  private final Connection connection;

  public PlainJdbcSession(DataSource dataSource) {
    try {
      this.connection = dataSource.getConnection();
      connection.setAutoCommit(false);
    } catch (SQLException e) {
      throw new ReadModelException("cannot open a projection session", e);
    }
  }

  @Override
  public <R> R withConnection(Function<Connection, R> func) throws Exception {
    return func.apply(connection);
  }

  @Override
  public void commit() throws SQLException {
    connection.commit();
  }

  @Override
  public void rollback() throws SQLException {
    connection.rollback();
  }

  @Override
  public void close() throws SQLException {
    connection.close();
  }
}
