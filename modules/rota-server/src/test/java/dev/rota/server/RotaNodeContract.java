package dev.rota.server;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigValueFactory;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Props;
import org.apache.pekko.actor.typed.javadsl.AskPattern;
import org.apache.pekko.persistence.jdbc.query.javadsl.JdbcReadJournal;
import org.apache.pekko.persistence.query.EventEnvelope;
import org.apache.pekko.persistence.query.Offset;
import org.apache.pekko.persistence.query.PersistenceQuery;
import org.apache.pekko.stream.javadsl.Sink;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * A whole node started in-process on free ports; run by {@link RotaNodeTest} per database. One node
 * serves the tests in order; the last one restarts it on the same database.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
abstract class RotaNodeContract extends NodeOnDatabase {
  /** Free ports, and small pools: a test node needs few connections and opens them faster. */
  static final Config TEST_NODE =
      ConfigFactory.parseMap(
          Map.of(
              "rota.http.port", 0,
              "rota.management.port", 0,
              "rota.cluster.port", 0,
              "rota.db.max-pool-size", 3));

  private static final Duration TIMEOUT = Duration.ofSeconds(20);

  private final HttpClient http = HttpClient.newBuilder().connectTimeout(TIMEOUT).build();
  private final String probeId = UUID.randomUUID().toString();
  private final String agentId = "agent-" + UUID.randomUUID();

  @Test
  @Order(1)
  void becomesReadyAndAlive() throws Exception {
    assertEquals(200, awaitStatus("/ready", 200));
    assertEquals(200, get(node.managementPort(), "/alive").statusCode());
  }

  @Test
  @Order(2)
  void formsASingleMemberCluster() throws Exception {
    awaitStatus("/ready", 200);
    JsonNode members =
        new ObjectMapper()
            .readTree(get(node.managementPort(), "/cluster/members").body())
            .get("members");

    assertEquals(1, members.size(), members.toString());
    assertEquals(node.clusterAddress().toString(), members.get(0).get("node").asText());
    assertEquals("Up", members.get(0).get("status").asText());
  }

  /**
   * Management's cluster routes are read-only: no one who reaches port 8558 can down, leave or join
   * a member over HTTP. The member is still up afterwards.
   */
  @Test
  @Order(2)
  void managementRoutesCannotChangeTheCluster() throws Exception {
    awaitStatus("/ready", 200);
    String address = node.clusterAddress().toString();
    String member =
        "/cluster/members/"
            + java.net.URLEncoder.encode(address, java.nio.charset.StandardCharsets.UTF_8);
    var requests =
        List.of(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + node.managementPort() + member))
                .DELETE(),
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + node.managementPort() + member))
                .PUT(HttpRequest.BodyPublishers.ofString("operation=Down"))
                .header("Content-Type", "application/x-www-form-urlencoded"),
            HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + node.managementPort() + "/cluster/members"))
                .POST(HttpRequest.BodyPublishers.ofString("address=" + address))
                .header("Content-Type", "application/x-www-form-urlencoded"));
    for (var request : requests) {
      HttpResponse<String> answer =
          http.send(request.timeout(TIMEOUT).build(), HttpResponse.BodyHandlers.ofString());
      assertTrue(
          answer.statusCode() == 404 || answer.statusCode() == 405,
          answer.request().method()
              + " "
              + answer.request().uri()
              + ": "
              + answer.statusCode()
              + " "
              + answer.body());
    }
    JsonNode members =
        new ObjectMapper()
            .readTree(get(node.managementPort(), "/cluster/members").body())
            .get("members");
    assertEquals("Up", members.get(0).get("status").asText(), members.toString());
  }

  @Test
  @Order(3)
  void acceptsConnectionsOnTheHttpPort() throws IOException {
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress("127.0.0.1", node.httpPort()), 5_000);
      assertTrue(socket.isConnected());
    }
  }

  @Test
  @Order(4)
  void journalsEventsAndFindsThemByTag() throws Exception {
    assertEquals(List.of("first", "second"), append("first", "second"));

    List<EventEnvelope> tagged =
        readJournal()
            .currentEventsByTag(JournalProbe.TAG, Offset.noOffset())
            .runWith(Sink.seq(), node.system())
            .toCompletableFuture()
            .get(TIMEOUT.toSeconds(), java.util.concurrent.TimeUnit.SECONDS);
    assertEquals(List.of("first", "second"), tagged.stream().map(EventEnvelope::event).toList());
  }

  @Test
  @Order(5)
  void acceptsAnAgentAndItsNotificationOverHttp() throws Exception {
    awaitStatus("/ready", 200);
    assertEquals(201, send("PUT", "/v1/agents/" + agentId, "{}").statusCode());
    HttpResponse<String> accepted =
        send(
            "POST",
            "/v1/agents/" + agentId + "/notifications",
            "{\"type\":\"mention\",\"payload\":{\"postId\":\"p9\"}}");
    assertEquals(202, accepted.statusCode(), accepted.body());
    assertEquals(1, unreadOf(agentId));
  }

  @Test
  @Order(6)
  void restartsOnTheSameDatabaseWithoutMigratingAgainAndRecoversEvents() throws Exception {
    long migrationsBefore = appliedMigrations();
    node.stop();
    node = RotaNode.startWith(nodeConfig(database));

    assertEquals(migrationsBefore, appliedMigrations());
    assertEquals(0, node.database().migrate());
    assertEquals(200, awaitStatus("/ready", 200));
    assertEquals(List.of("first", "second"), read());
    // The agent and its unread notification were persisted before they were acknowledged.
    assertEquals(1, unreadOf(agentId));
  }

  @Test
  @Order(7)
  void refusesToStartWithAnotherPartitionCountThanItsDatabaseWasWrittenWith() throws Exception {
    node.stop();
    node = null;
    Config otherPartitions =
        nodeConfig(database).withValue("rota.partitions", ConfigValueFactory.fromAnyRef(4));

    StartupException refused =
        assertThrows(StartupException.class, () -> RotaNode.startWith(otherPartitions));

    assertTrue(
        refused.getMessage().startsWith("rota.partitions is 4 but database "),
        refused.getMessage());
    // The refused start left the database as it was.
    node = RotaNode.startWith(nodeConfig(database));
    assertEquals(200, awaitStatus("/ready", 200));
    assertEquals(1, unreadOf(agentId));
  }

  private int unreadOf(String agent) throws Exception {
    HttpResponse<String> response = get(node.httpPort(), "/v1/agents/" + agent);
    assertEquals(200, response.statusCode(), response.body());
    return new ObjectMapper().readTree(response.body()).get("inbox").get("unread").asInt();
  }

  private HttpResponse<String> send(String method, String path, String body) throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + node.httpPort() + path))
            .timeout(TIMEOUT)
            .header("Content-Type", "application/json")
            .method(method, HttpRequest.BodyPublishers.ofString(body))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private List<String> append(String... entries) throws Exception {
    ActorRef<JournalProbe.Command> probe = probe();
    List<String> state = List.of();
    for (String entry : entries) {
      state = ask(probe, replyTo -> new JournalProbe.Append(entry, replyTo));
    }
    return state;
  }

  private List<String> read() throws Exception {
    return ask(probe(), JournalProbe.Read::new);
  }

  private ActorRef<JournalProbe.Command> probe() {
    return node.system()
        .systemActorOf(
            JournalProbe.create(probeId), "journal-probe-" + UUID.randomUUID(), Props.empty());
  }

  private List<String> ask(
      ActorRef<JournalProbe.Command> probe,
      org.apache.pekko.japi.function.Function<ActorRef<List<String>>, JournalProbe.Command> message)
      throws Exception {
    return AskPattern.ask(probe, message, TIMEOUT, node.system().scheduler())
        .toCompletableFuture()
        .get(TIMEOUT.toSeconds(), java.util.concurrent.TimeUnit.SECONDS);
  }

  private JdbcReadJournal readJournal() {
    return PersistenceQuery.get(node.system().classicSystem())
        .getReadJournalFor(JdbcReadJournal.class, JdbcReadJournal.Identifier());
  }

  private long appliedMigrations() throws SQLException {
    try (Connection connection = node.dataSource().getConnection();
        Statement statement = connection.createStatement();
        ResultSet rows =
            statement.executeQuery("select count(*) from flyway_schema_history where success")) {
      rows.next();
      return rows.getLong(1);
    }
  }

  /** The status of {@code path} once it is {@code expected}, or the last one seen in TIMEOUT. */
  private int awaitStatus(String path, int expected) throws Exception {
    AtomicInteger status = new AtomicInteger(-1);
    try {
      await()
          .atMost(TIMEOUT)
          .pollDelay(Duration.ZERO)
          .pollInterval(Duration.ofMillis(100))
          .until(() -> status.updateAndGet(s -> statusOf(path)) == expected);
    } catch (ConditionTimeoutException e) {
      // the caller asserts on the status it gets
    }
    return status.get();
  }

  private int statusOf(String path) {
    try {
      return get(node.managementPort(), path).statusCode();
    } catch (Exception e) {
      throw new IllegalStateException(path, e);
    }
  }

  private HttpResponse<String> get(int port, String path) throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
            .timeout(TIMEOUT)
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }
}
