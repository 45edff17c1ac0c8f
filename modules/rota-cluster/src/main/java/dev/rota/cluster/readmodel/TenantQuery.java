package dev.rota.cluster.readmodel;

import dev.rota.core.tenant.AgentKeys;
import dev.rota.core.tenant.Tenants;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;

/**
 * The read model by tenant ({@link ReadModel#tenants}): an agent's key names its tenant (the part
 * before its first {@code /}; none: {@code default}), so one grouped scan of {@code agent_schedule}
 * counts every tenant. Plain SQL that H2 and PostgreSQL both run. Runner time is not measured here:
 * the coordinators count it ({@link dev.rota.core.tenant.TenantRunnerTime}) and the dispatchers add
 * it up.
 */
final class TenantQuery {
  private TenantQuery() {}

  /** The tenant of an agent key, in SQL. */
  static final String TENANT_OF_KEY =
      "case when position('/' in agent_id) > 0"
          + " then substring(agent_id from 1 for position('/' in agent_id) - 1)"
          + " else '"
          + Tenants.DEFAULT
          + "' end";

  static final String GROUPS =
      "select tenant, count(*) as agents, coalesce(sum(unread), 0) as unread,"
          + " coalesce(sum(case when lease_id is not null then 1 else 0 end), 0) as leased,"
          + " min(oldest_unread_at) as oldest_unread_at"
          + " from (select "
          + TENANT_OF_KEY
          + " as tenant, unread, lease_id, oldest_unread_at from agent_schedule) keyed"
          + " group by tenant";

  /** Agents of one tenant other than default: their keys begin with its name and a slash. */
  static final String AGENTS_OF_TENANT =
      "select count(*) from agent_schedule where agent_id like ?";

  /** Agents of default: keys without a slash. */
  static final String AGENTS_OF_DEFAULT =
      "select count(*) from agent_schedule where position('/' in agent_id) = 0";

  record Counts(long agents, long unread, long leased, Instant oldestUnreadAt) {}

  /** Every tenant that has agents, by name: counts and the oldest unread notification. */
  static Map<String, TenantRow> tenants(ReadQueries queries) {
    Map<String, Counts> counts = queries.query("tenants", GROUPS, s -> {}, TenantQuery::readGroups);
    Map<String, TenantRow> rows = new HashMap<>();
    counts.forEach(
        (tenant, c) ->
            rows.put(
                tenant,
                new TenantRow(tenant, c.agents(), c.unread(), c.leased(), c.oldestUnreadAt())));
    return rows;
  }

  /** How many agents {@code tenant} has. */
  static long agentsOf(ReadQueries queries, String tenant) {
    boolean isDefault = Tenants.DEFAULT.equals(tenant);
    return queries.query(
        "agentsOfTenant",
        isDefault ? AGENTS_OF_DEFAULT : AGENTS_OF_TENANT,
        s -> {
          if (!isDefault) {
            s.setString(1, AgentKeys.likePattern(tenant));
          }
        },
        rs -> rs.next() ? rs.getLong(1) : 0L);
  }

  static Map<String, Counts> readGroups(ResultSet rs) throws SQLException {
    Map<String, Counts> groups = new HashMap<>();
    while (rs.next()) {
      groups.put(
          rs.getString("tenant"),
          new Counts(
              rs.getLong("agents"),
              rs.getLong("unread"),
              rs.getLong("leased"),
              Sql.getInstant(rs, "oldest_unread_at")));
    }
    return groups;
  }
}
