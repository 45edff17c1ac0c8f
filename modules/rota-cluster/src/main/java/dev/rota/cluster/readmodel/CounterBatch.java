package dev.rota.cluster.readmodel;

import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The counts of one transaction, added to {@code rota_counter} at its end in one batch. Rows are
 * keyed by the writer's slot (the journal's writers) or by the agents' partition; readers sum a
 * counter's rows whatever their key.
 */
final class CounterBatch {
  /** Prepares (and caches) a statement of the transaction. */
  @FunctionalInterface
  interface Statements {
    PreparedStatement get(String sql) throws SQLException;
  }

  private final TreeMap<Integer, EnumMap<Counter, Long>> counts = new TreeMap<>();

  /** Adds to a counter of this transaction. */
  void add(int rowKey, Counter counter, long n) {
    if (n > 0) {
      counts
          .computeIfAbsent(rowKey, p -> new EnumMap<>(Counter.class))
          .merge(counter, n, Long::sum);
    }
  }

  /**
   * Adds this transaction's counts to their counter rows, in the order of (row key, counter), so
   * that two transactions adding to the same rows lock them in the same order.
   */
  void flush(Statements statements) throws SQLException {
    if (counts.isEmpty()) {
      return;
    }
    // One batch (one round trip) for every counter row the transaction adds to; the rows that
    // do not exist yet (a partition's first counts) are inserted after it.
    List<Object[]> rows = new ArrayList<>();
    PreparedStatement update =
        statements.get(
            "update rota_counter set total = total + ? where name = ? and partition_id = ?");
    for (Map.Entry<Integer, EnumMap<Counter, Long>> byKey : counts.entrySet()) {
      for (Map.Entry<Counter, Long> entry : byKey.getValue().entrySet()) {
        update.setLong(1, entry.getValue());
        update.setString(2, entry.getKey().key());
        update.setInt(3, byKey.getKey());
        update.addBatch();
        rows.add(new Object[] {entry.getKey().key(), byKey.getKey(), entry.getValue()});
      }
    }
    int[] updated = update.executeBatch();
    for (int i = 0; i < rows.size(); i++) {
      if (updated[i] == 0) {
        PreparedStatement insert =
            statements.get("insert into rota_counter (name, partition_id, total) values (?, ?, ?)");
        insert.setString(1, (String) rows.get(i)[0]);
        insert.setInt(2, (Integer) rows.get(i)[1]);
        insert.setLong(3, (Long) rows.get(i)[2]);
        insert.executeUpdate();
      }
    }
    counts.clear();
  }
}
