package dev.rota.cluster.readmodel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.rota.cluster.agent.AgentEvents;
import dev.rota.cluster.agent.AgentEvents.Event;
import dev.rota.cluster.agent.AgentEvents.InboxSummary;
import dev.rota.cluster.journal.ReadModelSink.Persisted;
import dev.rota.cluster.testing.TestDatabase;
import dev.rota.core.model.ActivationKind;
import dev.rota.core.model.AgentConfig;
import dev.rota.core.model.Ids;
import dev.rota.core.model.Lease;
import dev.rota.core.model.Notification;
import dev.rota.core.model.OutboxItem;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestReporter;

/**
 * On PostgreSQL, the updates a turn makes of its agent's {@code agent_schedule} row are HOT
 * (decision 129): they change no indexed column and find room on the row's page, so they add no
 * index entries. Turns go through the real writer ({@link ReadModelUpdate}), one transaction per
 * group of agents as the journal's writer commits them, and PostgreSQL's own counters judge.
 */
class ReadModelHotUpdatesPostgresTest {
  private static final TestDatabase DB = TestDatabase.postgres();
  private static final int PARTITIONS = 4;
  private static final int AGENTS = 200;
  private static final int GROUP = 20;
  private static final int TURNS = 5;
  private static final Instant T0 = Instant.parse("2026-11-28T09:00:00Z");

  /** Below this share of HOT updates the table has an index on a column a turn changes. */
  private static final double HOT_FLOOR = 0.8;

  private final Map<String, Long> seqNrs = new HashMap<>();

  @AfterAll
  static void close() {
    DB.close();
  }

  @Test
  void aTurnsUpdatesOfItsAgentsRowAreHot(TestReporter reporter) throws Exception {
    long updates = 0;
    try (Connection writer = DB.dataSource().getConnection()) {
      writer.setAutoCommit(false);
      eachGroup(writer, (agent, i) -> List.of(registered(agent)));
      for (int turn = 1; turn <= TURNS; turn++) {
        Instant at = T0.plusSeconds(60L * turn);
        long token = turn;
        updates += eachGroup(writer, (agent, i) -> List.of(notified(agent, token, at)));
        updates += eachGroup(writer, (agent, i) -> List.of(granted(agent, token, at)));
        updates +=
            eachGroup(
                writer,
                (agent, i) ->
                    List.of(
                        new AgentEvents.LeaseRenewed(
                            leaseId(agent, token), at.plusSeconds(60), at.plusSeconds(10))));
        // Every other agent's turn sends one item, delivered in a later transaction.
        updates +=
            eachGroup(writer, (agent, i) -> List.of(completed(agent, token, at, i % 2 == 0)));
        updates +=
            eachGroup(
                writer,
                (agent, i) ->
                    i % 2 == 0
                        ? List.of(
                            new AgentEvents.SendDelivered(
                                sendId(agent, token), "target", at.plusSeconds(30)))
                        : List.of());
      }
      writer.setAutoCommit(true);
      try (Statement s = writer.createStatement()) {
        // Backends report their counters at most once a second; this one's next report is now.
        s.execute("select pg_stat_force_next_flush()");
      }
    }
    assertEquals(
        (long) TURNS,
        DB.queryLong("select min(activation_count) from agent_schedule"),
        "every turn reached every row");

    long[] counted = countedUpdates(updates);
    double hotShare = (double) counted[1] / counted[0];
    // In the test report, for docs/performance.md.
    reporter.publishEntry(
        "agent_schedule", counted[0] + " updates, " + counted[1] + " HOT (" + hotShare + ")");
    assertEquals(updates, counted[0], "PostgreSQL counted the writer's updates and no others");
    assertTrue(
        hotShare > HOT_FLOOR,
        "HOT share " + hotShare + " of " + counted[0] + " updates, not above " + HOT_FLOOR);
  }

  /**
   * The queries V14 left an index for still use it once the table is too big to read whole: a
   * coordinator's load of its partition, and the rescuer's rows to rebuild (a partial index of the
   * marked rows). The queries whose index went scan the table by design (docs/performance.md).
   */
  @Test
  void theQueriesLeftAnIndexStillUseItOnAFilledTable() throws SQLException {
    try (TestDatabase db = TestDatabase.postgres()) {
      db.execute(
          "insert into agent_schedule (agent_id, partition_id, capabilities, seq_nr, updated_at,"
              + " config) select 'agent-' || i, i % 16, 'code', 1, now(), repeat('x', 200) from"
              + " generate_series(1, 20000) i; update agent_schedule set rebuild = true where"
              + " agent_id in ('agent-7', 'agent-9'); analyze agent_schedule");

      assertPlanUses(db, ReadModel.LOAD_PARTITION, 3, "agent_schedule_partition_idx");
      assertPlanUses(db, RowRebuild.PENDING, 100, "agent_schedule_rebuild_idx");
    }
  }

  private static void assertPlanUses(TestDatabase db, String sql, int parameter, String index)
      throws SQLException {
    StringBuilder plan = new StringBuilder();
    try (Connection c = db.dataSource().getConnection();
        PreparedStatement s = c.prepareStatement("explain " + sql)) {
      s.setInt(1, parameter);
      try (ResultSet rs = s.executeQuery()) {
        while (rs.next()) {
          plan.append(rs.getString(1)).append('\n');
        }
      }
    }
    assertTrue(plan.toString().contains(index), sql + " does not use " + index + ":\n" + plan);
  }

  // ---- turns through the writer ----

  @FunctionalInterface
  private interface EventsOf {
    List<Event> of(String agentId, int index);
  }

  /** Applies each agent's events, {@link #GROUP} agents a transaction; the rows updated. */
  private long eachGroup(Connection writer, EventsOf events) throws SQLException {
    long rows = 0;
    List<Persisted> group = new ArrayList<>();
    for (int i = 0; i < AGENTS; i++) {
      String agentId = agentId(i);
      for (Event event : events.of(agentId, i)) {
        group.add(new Persisted("Agent|" + agentId, seqNrs.merge(agentId, 1L, Long::sum), event));
        rows++;
      }
      if (group.size() >= GROUP || i == AGENTS - 1) {
        new ReadModelUpdate(PARTITIONS, () -> {}).apply(writer, group, -1);
        writer.commit();
        group.clear();
      }
    }
    return rows;
  }

  /**
   * PostgreSQL's count of updated and HOT-updated rows of {@code agent_schedule}, once it has
   * counted {@code expected}: statistics reach the shared counters asynchronously, so this asks
   * again for a while (no time is asserted; a count that never arrives fails below).
   */
  private static long[] countedUpdates(long expected) throws Exception {
    long[] counted = {0, 0};
    for (int attempt = 0; attempt < 200 && counted[0] < expected; attempt++) {
      if (attempt > 0) {
        Thread.sleep(50);
      }
      try (Connection c = DB.dataSource().getConnection();
          PreparedStatement s =
              c.prepareStatement(
                  "select n_tup_upd, n_tup_hot_upd from pg_stat_user_tables"
                      + " where relname = 'agent_schedule'");
          ResultSet rs = s.executeQuery()) {
        assertTrue(rs.next(), "no statistics for agent_schedule");
        counted[0] = rs.getLong(1);
        counted[1] = rs.getLong(2);
      }
    }
    return counted;
  }

  // ---- events ----

  private static String agentId(int i) {
    return "agent-" + i;
  }

  private static AgentEvents.AgentRegistered registered(String agentId) {
    return new AgentEvents.AgentRegistered(
        new AgentConfig("name-" + agentId, List.of("code"), 0, 30, 100, 3, null), T0);
  }

  private static AgentEvents.NotificationReceived notified(String agentId, long turn, Instant at) {
    String id = agentId + "-n" + turn;
    return new AgentEvents.NotificationReceived(
        new Notification(
            id, "mention", JsonNodeFactory.instance.objectNode().put("post", id), null, at, 0));
  }

  private static String leaseId(String agentId, long token) {
    return Ids.leaseId(agentId, token);
  }

  private static AgentEvents.LeaseGranted granted(String agentId, long token, Instant at) {
    return new AgentEvents.LeaseGranted(
        new Lease(
            leaseId(agentId, token),
            "runner-" + agentId,
            ActivationKind.INBOX,
            token,
            1,
            at.plusSeconds(1),
            at.plusSeconds(31),
            30,
            List.of(agentId + "-n" + token)));
  }

  private static String sendId(String agentId, long token) {
    return agentId + "-s" + token;
  }

  private static AgentEvents.ActivationCompleted completed(
      String agentId, long token, Instant at, boolean sends) {
    Instant done = at.plusSeconds(20);
    List<OutboxItem> items =
        sends
            ? List.of(
                new OutboxItem(
                    sendId(agentId, token),
                    "target",
                    "t",
                    null,
                    "k-" + token,
                    null,
                    null,
                    null,
                    null,
                    done))
            : List.of();
    return new AgentEvents.ActivationCompleted(
        leaseId(agentId, token), null, done, new InboxSummary(0, null), items, List.of());
  }
}
