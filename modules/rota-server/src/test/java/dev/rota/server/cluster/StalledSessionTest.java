package dev.rota.server.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.rota.cluster.system.SessionLimits;
import dev.rota.server.RotaConfig;
import dev.rota.server.RotaNode;
import dev.rota.server.RotaSettings.DbSettings;
import dev.rota.server.testing.ClusterNodes;
import dev.rota.server.testing.Databases;
import dev.rota.server.testing.TestDatabase;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.pekko.actor.testkit.typed.javadsl.LogCapturingExtension;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A node that stalls inside a transaction (a GC pause, a paused VM, SIGSTOP) must not hold other
 * nodes' writes. Two real nodes on one PostgreSQL; the test itself plays the stalled node: it holds
 * a transaction open on the rows the first node writes (its journal writers' counter rows and its
 * agents' read-model rows) while the second node takes writes, and it holds a session with the
 * node's own limits idle in a transaction until the server ends it.
 */
@ExtendWith(LogCapturingExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class StalledSessionTest {
  private static final Duration TIMEOUT = Duration.ofSeconds(60);
  private static final ObjectMapper JSON = new ObjectMapper();

  private final HttpClient http = HttpClient.newBuilder().connectTimeout(TIMEOUT).build();
  private final List<RotaNode> nodes = new ArrayList<>();
  private TestDatabase database;
  private RotaNode first;
  private RotaNode second;
  private List<Integer> firstNodesCounterSlots;

  @BeforeAll
  void startTwoNodes() throws Exception {
    database = Databases.postgres();
    int seed = ClusterNodes.freePort();
    first = RotaNode.startWith(nodeConfig(seed, seed));
    nodes.add(first);
    // A write makes the first node's journal take its counter slots before the second starts.
    assertEquals(201, send(first, "PUT", "/v1/agents/warm-up", "{}").statusCode());
    firstNodesCounterSlots = counterSlots();
    assertFalse(firstNodesCounterSlots.isEmpty());
    second = RotaNode.startWith(nodeConfig(ClusterNodes.freePort(), seed));
    nodes.add(second);
    ClusterNodes.await(
        "two members up",
        TIMEOUT,
        () -> nodes.stream().allMatch(n -> ClusterNodes.membersUp(n) == 2));
  }

  @AfterAll
  void stopNodes() {
    for (int i = nodes.size() - 1; i >= 0; i--) {
      nodes.get(i).stop();
    }
    database.close();
  }

  @Test
  void anotherNodesWritesGoThroughWhileOneNodesRowsAreLocked() throws Exception {
    List<String> onFirst = agentsHostedOn(first, "held", 3);
    List<String> onSecond = agentsHostedOn(second, "free", 3);
    try (Connection stalled = connect(new Properties())) {
      stalled.setAutoCommit(false);
      try (Statement s = stalled.createStatement()) {
        s.executeUpdate(
            "update rota_counter set total = total where partition_id in ("
                + firstNodesCounterSlots.stream().map(String::valueOf).collect(joining())
                + ")");
        s.executeUpdate(
            "update agent_schedule set unread = unread where agent_id in ("
                + onFirst.stream().map(id -> "'" + id + "'").collect(joining())
                + ")");
      }
      // The second node's writes count in its own writers' counter rows and touch only its own
      // agents' rows: none waits for the stalled transaction.
      for (int round = 0; round < 5; round++) {
        for (String agent : onSecond) {
          HttpResponse<String> accepted =
              send(
                  second,
                  "POST",
                  "/v1/agents/" + agent + "/notifications",
                  "{\"type\":\"while-stalled\"}");
          assertEquals(202, accepted.statusCode(), accepted.body());
        }
      }
      stalled.rollback();
    }
    for (String agent : onSecond) {
      assertEquals(5, unread(second, agent));
    }
  }

  @Test
  void theServerEndsASessionThatStallsInsideATransaction() throws Exception {
    String agent = agentsHostedOn(first, "frozen", 1).get(0);
    SessionLimits limits = SessionLimits.from(first.config());
    try (Connection frozen = connect(limits.asProperties())) {
      frozen.setAutoCommit(false);
      try (PreparedStatement s =
          frozen.prepareStatement("update agent_schedule set unread = unread where agent_id = ?")) {
        s.setString(1, agent);
        s.executeUpdate();
      }
      // Idle inside the transaction, like a node stopped between two statements: the server ends
      // the session after idle-in-transaction-timeout and its lock with it.
      Thread.sleep(limits.idleInTransactionTimeout().plusSeconds(1).toMillis());
      SQLException ended =
          assertThrows(
              SQLException.class,
              () -> {
                try (Statement s = frozen.createStatement()) {
                  s.execute("select 1");
                }
              });
      assertTrue(
          ended.getMessage().contains("idle-in-transaction")
              || "25P03".equals(ended.getSQLState())
              || "08006".equals(ended.getSQLState()),
          ended.getSQLState() + ": " + ended.getMessage());
    }
    HttpResponse<String> accepted =
        send(first, "POST", "/v1/agents/" + agent + "/notifications", "{\"type\":\"after\"}");
    assertEquals(202, accepted.statusCode(), accepted.body());
    assertEquals(1, unread(first, agent));
  }

  @Test
  void theNodesSessionsCarryTheConfiguredLimits() throws Exception {
    try (Connection c = first.dataSource().getConnection();
        Statement s = c.createStatement()) {
      assertEquals("1s", show(s, "lock_timeout"));
      assertEquals("3s", show(s, "idle_in_transaction_session_timeout"));
      assertEquals("30s", show(s, "statement_timeout"));
    }
  }

  private static String show(Statement s, String setting) throws SQLException {
    try (ResultSet row = s.executeQuery("show " + setting)) {
      row.next();
      return row.getString(1);
    }
  }

  private Config nodeConfig(int clusterPort, int seedPort) {
    Config overrides =
        ConfigFactory.parseString(
            String.join(
                "\n",
                "rota.http.port = 0",
                "rota.management.port = 0",
                "rota.cluster.port = " + clusterPort,
                "rota.cluster.seed-nodes = \"127.0.0.1:" + seedPort + "\"",
                "rota.db.max-pool-size = 4"));
    return RotaConfig.load(overrides.withFallback(database.config()), Map.of());
  }

  /** The counter slots in use now (taken from the sequence, above every partition number). */
  private List<Integer> counterSlots() throws SQLException {
    List<Integer> slots = new ArrayList<>();
    try (Connection c = connect(new Properties());
        Statement s = c.createStatement();
        ResultSet rows =
            s.executeQuery(
                "select distinct partition_id from rota_counter where partition_id >= 1000000")) {
      while (rows.next()) {
        slots.add(rows.getInt(1));
      }
    }
    return slots;
  }

  private Connection connect(Properties limits) throws SQLException {
    DbSettings settings = database.settings();
    Properties properties = new Properties();
    properties.putAll(limits);
    properties.setProperty("user", settings.user());
    if (settings.password() != null) {
      properties.setProperty("password", settings.password());
    }
    return DriverManager.getConnection(settings.url(), properties);
  }

  private List<String> agentsHostedOn(RotaNode node, String prefix, int count) throws Exception {
    List<String> found = new ArrayList<>();
    for (int i = 0; i < 100 && found.size() < count; i++) {
      String id = prefix + "-" + i;
      assertEquals(201, send(node, "PUT", "/v1/agents/" + id, "{}").statusCode());
      Set<String> hosted = ClusterNodes.hostedAgents(node, TIMEOUT);
      if (hosted.contains(id)) {
        found.add(id);
      }
    }
    assertEquals(count, found.size(), "agents landing on " + node.clusterAddress());
    // Their read-model rows exist before a test locks them.
    ClusterNodes.await(
        "read-model rows of " + found,
        TIMEOUT,
        () -> {
          try {
            return rowsOf(found) == found.size();
          } catch (SQLException e) {
            throw new IllegalStateException(e);
          }
        });
    return found;
  }

  private int rowsOf(List<String> agents) throws SQLException {
    try (Connection c = connect(new Properties());
        Statement s = c.createStatement();
        ResultSet row =
            s.executeQuery(
                "select count(*) from agent_schedule where agent_id in ("
                    + agents.stream().map(id -> "'" + id + "'").collect(joining())
                    + ")")) {
      row.next();
      return row.getInt(1);
    }
  }

  private int unread(RotaNode node, String agent) throws Exception {
    HttpResponse<String> view = send(node, "GET", "/v1/agents/" + agent, null);
    assertEquals(200, view.statusCode(), view.body());
    return JSON.readTree(view.body()).get("inbox").get("unread").asInt();
  }

  private static java.util.stream.Collector<CharSequence, ?, String> joining() {
    return Collectors.joining(", ");
  }

  private HttpResponse<String> send(RotaNode node, String method, String path, String body)
      throws Exception {
    return ClusterNodes.send(http, node, method, path, body, TIMEOUT);
  }
}
