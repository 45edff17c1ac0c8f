package dev.rota.cluster.readmodel;

import dev.rota.core.pool.BacklogGroup;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The pool scaler's reads of the read model ({@link ReadModel#backlog}, {@link
 * ReadModel#leaseKindsByRunner}): one grouped scan of the unpaused agents, by required capability
 * set and minimum activation interval (few distinct pairs in practice), and the kind of every held
 * lease by runner.
 */
final class BacklogQuery {
  private BacklogQuery() {}

  static final String GROUPS =
      "select capabilities, min_activation_interval_seconds as min_interval,"
          + " count(*) as agents,"
          + " coalesce(sum(case when unread > 0 then 1 else 0 end), 0) as with_inbox,"
          + " coalesce(sum(case when unread > 0 and lease_id is null"
          + " and (snoozed_until is null or snoozed_until <= ?) then 1 else 0 end), 0) as waiting,"
          + " min(oldest_unread_at) as oldest_unread_at,"
          + " min(case when unread = 0 and lease_id is null"
          + " then coalesce(last_activated_at, registered_at, updated_at) end) as stalest_at"
          + " from agent_schedule where not paused"
          + " group by capabilities, min_activation_interval_seconds";

  static final String LEASE_KINDS =
      "select lease_runner_id, lease_kind from agent_schedule"
          + " where lease_id is not null and lease_runner_id is not null";

  static void bindGroups(PreparedStatement statement, Instant now) throws SQLException {
    Sql.setInstant(statement, 1, now);
  }

  static List<BacklogGroup> readGroups(ResultSet rs) throws SQLException {
    List<BacklogGroup> groups = new ArrayList<>();
    while (rs.next()) {
      String capabilities = rs.getString("capabilities");
      groups.add(
          new BacklogGroup(
              capabilities == null || capabilities.isEmpty()
                  ? Set.of()
                  : Set.copyOf(Arrays.asList(capabilities.split(","))),
              rs.getLong("min_interval"),
              rs.getLong("agents"),
              rs.getLong("with_inbox"),
              rs.getLong("waiting"),
              Sql.getInstant(rs, "oldest_unread_at"),
              Sql.getInstant(rs, "stalest_at")));
    }
    return groups;
  }

  static Map<String, String> readLeaseKinds(ResultSet rs) throws SQLException {
    Map<String, String> kinds = new HashMap<>();
    while (rs.next()) {
      kinds.put(rs.getString("lease_runner_id"), rs.getString("lease_kind"));
    }
    return kinds;
  }
}
