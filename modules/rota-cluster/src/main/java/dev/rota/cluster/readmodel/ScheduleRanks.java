package dev.rota.cluster.readmodel;

import dev.rota.core.tenant.AgentKeys;
import dev.rota.core.tenant.Tenants;
import java.time.Instant;

/**
 * Where an agent stands in the rule's orders among the agents of its capability set, counted in
 * {@code agent_schedule} (the explain view): as fresh as the read model, and without asking any
 * coordinator.
 */
final class ScheduleRanks {
  private final ReadQueries queries;

  ScheduleRanks(ReadQueries queries) {
    this.queries = queries;
  }

  /**
   * How many agents of a capability set (and of the agent's own tenant: the rule orders agents
   * inside a tenant) stand ahead of one in the inbox order (most unread, oldest unread, higher
   * priority, agent id), among those the rule could pick now: unread work, not leased, paused or
   * snoozed. As fresh as the read model.
   *
   * @param capabilities the set's key: sorted, comma-separated
   */
  long aheadInInbox(
      String agentId,
      String capabilities,
      int unread,
      Instant oldestUnreadAt,
      int priority,
      Instant now) {
    String sql =
        "select count(*) from agent_schedule where capabilities = ? and agent_id <> ?"
            + sameTenant(agentId)
            + " and unread > 0 and lease_id is null and not paused"
            + " and (snoozed_until is null or snoozed_until <= ?)"
            + " and (unread > ? or (unread = ? and (oldest_unread_at < ?"
            + " or (oldest_unread_at = ? and (priority > ? or (priority = ? and agent_id < ?))))))";
    return queries.query(
        "inbox rank",
        sql,
        s -> {
          s.setString(1, capabilities);
          s.setString(2, agentId);
          Sql.setInstant(s, 3, now);
          s.setInt(4, unread);
          s.setInt(5, unread);
          Sql.setInstant(s, 6, oldestUnreadAt);
          Sql.setInstant(s, 7, oldestUnreadAt);
          s.setInt(8, priority);
          s.setInt(9, priority);
          s.setString(10, agentId);
        },
        rs -> {
          rs.next();
          return rs.getLong(1);
        });
  }

  /**
   * How many agents of a capability set stand ahead of one in the staleness order (never activated
   * first, then oldest last activation, then agent id), among those the rule could pick now: no
   * unread work, not leased, paused or snoozed, and past their minimum interval.
   *
   * @param lastActivatedAt null when the agent was never activated
   */
  long aheadInStaleness(String agentId, String capabilities, Instant lastActivatedAt, Instant now) {
    String before =
        lastActivatedAt == null
            ? " and last_activated_at is null and agent_id < ?"
            : " and (last_activated_at is null or last_activated_at < ?"
                + " or (last_activated_at = ? and agent_id < ?))";
    String sql =
        "select last_activated_at, min_activation_interval_seconds from agent_schedule"
            + " where capabilities = ? and agent_id <> ?"
            + sameTenant(agentId)
            + " and unread = 0 and lease_id is null"
            + " and not paused and (snoozed_until is null or snoozed_until <= ?)"
            + before;
    return queries.query(
        "staleness rank",
        sql,
        s -> {
          s.setString(1, capabilities);
          s.setString(2, agentId);
          Sql.setInstant(s, 3, now);
          if (lastActivatedAt == null) {
            s.setString(4, agentId);
          } else {
            Sql.setInstant(s, 4, lastActivatedAt);
            Sql.setInstant(s, 5, lastActivatedAt);
            s.setString(6, agentId);
          }
        },
        rs -> {
          // The minimum interval is per agent: checked here rather than in dialect-specific SQL.
          long ahead = 0;
          while (rs.next()) {
            Instant last = Sql.getInstant(rs, "last_activated_at");
            long interval = rs.getLong("min_activation_interval_seconds");
            if (last == null || interval <= 0 || !last.plusSeconds(interval).isAfter(now)) {
              ahead++;
            }
          }
          return ahead;
        });
  }

  /**
   * The condition that keeps a rank among the agents of {@code key}'s tenant ({@link AgentKeys}). A
   * tenant name is {@code [a-z0-9-]}, so it is safe as a literal and holds no {@code LIKE}
   * wildcard.
   */
  static String sameTenant(String key) {
    String tenant = AgentKeys.tenantOf(key);
    if (!Tenants.isValidName(tenant)) {
      throw new IllegalArgumentException("not an agent key: " + key);
    }
    return Tenants.DEFAULT.equals(tenant)
        ? " and agent_id not like '%/%'"
        : " and agent_id like '" + AgentKeys.likePattern(tenant) + "'";
  }
}
