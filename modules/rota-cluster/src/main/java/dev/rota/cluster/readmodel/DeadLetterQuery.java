package dev.rota.cluster.readmodel;

import dev.rota.core.tenant.AgentKeys;
import dev.rota.core.tenant.Tenants;
import java.util.ArrayList;
import java.util.List;

/** The dead-letter listing's query ({@link ReadModel#deadLetters}). */
final class DeadLetterQuery {
  private DeadLetterQuery() {}

  /**
   * The newest dead letters, of one agent (by its key) or of every agent of one tenant, or of all
   * when both are null.
   */
  static List<DeadLetterRow> newest(
      ReadQueries queries, String agentIdOrNull, String tenantOrNull, int limit) {
    String columns =
        "select id, agent_id, notification_id, type, payload, attempts, reason, dead_at"
            + " from dead_letter";
    String where;
    if (agentIdOrNull != null) {
      where = " where agent_id = ?";
    } else if (tenantOrNull == null) {
      where = "";
    } else if (Tenants.DEFAULT.equals(tenantOrNull)) {
      where = " where agent_id not like '%/%'";
    } else {
      where = " where agent_id like ?";
    }
    String sql = columns + where + " order by dead_at desc, id limit ?";
    return queries.query(
        "deadLetters",
        sql,
        s -> {
          int i = 1;
          if (agentIdOrNull != null) {
            s.setString(i++, agentIdOrNull);
          } else if (tenantOrNull != null && !Tenants.DEFAULT.equals(tenantOrNull)) {
            s.setString(i++, AgentKeys.likePattern(tenantOrNull));
          }
          s.setInt(i, limit);
        },
        rs -> {
          List<DeadLetterRow> rows = new ArrayList<>();
          while (rs.next()) {
            rows.add(
                new DeadLetterRow(
                    rs.getString("id"),
                    rs.getString("agent_id"),
                    rs.getString("notification_id"),
                    rs.getString("type"),
                    rs.getString("payload"),
                    rs.getInt("attempts"),
                    rs.getString("reason"),
                    Sql.getInstant(rs, "dead_at")));
          }
          return rows;
        });
  }
}
