package dev.rota.server;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.rota.core.tenant.AgentKeys;
import dev.rota.server.testing.Databases;
import dev.rota.server.testing.NodeHttp;
import dev.rota.server.testing.PostgresTools;
import dev.rota.server.testing.TestDatabase;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.pekko.actor.testkit.typed.javadsl.LogCapturingExtension;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A database written by an earlier release is read by this one (decision 122): each fixture under
 * {@code src/test/resources/upgrade/} ({@link UpgradeFixtureWriter}, its H2 {@code SCRIPT} and its
 * {@code pg_dump}) is restored into a fresh database — H2 by {@code RUNSCRIPT}, the dump by {@code
 * psql} into the suites' PostgreSQL 16 — and a node of this checkout started on it must find
 * everything the old node answered ({@code h2.json}, {@code postgres.json}): every agent with its
 * configuration, unread notifications, schedules and dead letters, the agents' listing, the dead
 * letters, the tenants with an admin's settings, and the open calls (answered {@code timedOut} once
 * their deadline has passed, as the new code must). The lease the fixture holds expires and its
 * notifications are served again, one attempt further. The node migrates the fixture's schema as it
 * starts, through the partitioning of PostgreSQL's journal (decision 124), and every event the
 * fixture holds is still there and read back ({@link UpgradedJournal}).
 */
@ExtendWith(LogCapturingExtension.class)
class UpgradeFixtureTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration SOON = Duration.ofSeconds(30);

  @TestFactory
  Stream<DynamicTest> everyFixtureIsReadByThisRelease() throws IOException, URISyntaxException {
    Path root = Path.of(UpgradeFixtureTest.class.getResource("/upgrade").toURI());
    List<DynamicTest> tests = new ArrayList<>();
    try (Stream<Path> dirs = Files.list(root)) {
      for (Path dir : dirs.filter(Files::isDirectory).sorted().toList()) {
        for (String database : List.of("h2", "postgres")) {
          tests.add(
              DynamicTest.dynamicTest(
                  dir.getFileName() + " on " + database, () -> recover(dir, database)));
        }
      }
    }
    assertFalse(tests.isEmpty(), "no fixture under " + root);
    return tests.stream();
  }

  private void recover(Path dir, String database) throws Exception {
    JsonNode manifest = JSON.readTree(dir.resolve(database + ".json").toFile());
    Path data = dir.resolve(database + ".sql");
    boolean onH2 = database.equals("h2");
    try (TestDatabase restored = onH2 ? Databases.h2() : Databases.postgres()) {
      if (onH2) {
        try (Connection c = DriverManager.getConnection(restored.settings().url(), "sa", "");
            Statement s = c.createStatement()) {
          s.execute("RUNSCRIPT FROM '" + data.toAbsolutePath() + "'");
        }
      } else {
        PostgresTools.restore(data, restored);
      }
      requireFixtureContent(restored, manifest);
      UpgradedJournal journal;
      try (Database db = restored.open()) {
        journal = UpgradedJournal.before(db.dataSource());
      }
      Config extra = ConfigFactory.parseMap(Map.of("rota.rescue.interval", "1s"));
      RotaNode node =
          RotaNode.startWith(
              onH2
                  ? NodeOnDatabase.h2Config(extra, restored)
                  : NodeOnDatabase.postgresConfig(extra, restored));
      try {
        awaitReady(node);
        journal.checkMigrated(node, !onH2);
        new Expectations(new NodeHttp(node.httpPort()), manifest).check();
      } finally {
        node.stop();
      }
    }
  }

  /** What the fixture must hold for the test to mean anything: a snapshot with events after it. */
  private static void requireFixtureContent(TestDatabase restored, JsonNode manifest)
      throws SQLException {
    JsonNode snapshotted = manifest.get("snapshot");
    String persistenceId = "Agent|" + key(snapshotted);
    try (Database db = restored.open();
        Connection c = db.dataSource().getConnection();
        var s =
            c.prepareStatement(
                "select (select max(sequence_number) from snapshot where persistence_id = ?),"
                    + " (select max(sequence_number) from event_journal where persistence_id = ?)")) {
      s.setString(1, persistenceId);
      s.setString(2, persistenceId);
      try (var rows = s.executeQuery()) {
        rows.next();
        long snapshot = rows.getLong(1);
        long lastEvent = rows.getLong(2);
        assertTrue(snapshot > 0, "the fixture holds no snapshot of " + persistenceId);
        assertTrue(lastEvent > snapshot, "the fixture holds no event after the snapshot");
      }
    }
  }

  static String key(JsonNode agent) {
    return AgentKeys.key(agent.get("tenant").asText(), agent.get("agentId").asText());
  }

  private static void awaitReady(RotaNode node) {
    NodeHttp management = new NodeHttp(node.managementPort());
    await("node ready")
        .atMost(SOON)
        .pollInterval(Duration.ofMillis(100))
        .until(() -> management.send("GET", "/ready", null).statusCode() == 200);
  }

  /** The old node's answers held against the new node's. */
  private static final class Expectations {
    private static final List<String> AGENT_FIELDS =
        List.of(
            "agentId",
            "tenant",
            "name",
            "capabilities",
            "priority",
            "minActivationIntervalSeconds",
            "maxInboxDepth",
            "maxAttempts",
            "metadata",
            "lastActivatedAt",
            "activationCount",
            "deadLetters",
            "schedules",
            "newInput",
            "debounceMs",
            "debounceMaxMs");

    private final NodeHttp http;
    private final JsonNode manifest;
    private final JsonNode group;
    private final boolean groupTimedOut;

    Expectations(NodeHttp http, JsonNode manifest) {
      this.http = http;
      this.manifest = manifest;
      this.group = manifest.get("groupCall");
      this.groupTimedOut =
          Instant.now().isAfter(Instant.parse(group.get("deadline").asText()).plusSeconds(1));
    }

    void check() {
      // First what the read model serves, before any agent recovers and changes.
      tenants();
      deadLetters();
      listings();
      agents();
      outsideCall();
      groupCall();
      leaseServedAgain();
    }

    /** Awaited: the tenant directory publishes the admin's settings to the node after it starts. */
    private void tenants() {
      await("the tenants as the old node had them")
          .atMost(SOON)
          .pollInterval(Duration.ofMillis(200))
          .untilAsserted(this::sameTenants);
    }

    private void sameTenants() {
      JsonNode now = http.json("GET", "/admin/tenants", null, 200).get("tenants");
      for (JsonNode old : manifest.get("tenants").get("tenants")) {
        JsonNode found = find(now, "tenant", old.get("tenant").asText());
        for (String field :
            List.of(
                "tenant",
                "weight",
                "maxConcurrent",
                "maxActivationsPerMinute",
                "agents",
                "unread")) {
          assertEquals(old.get(field), found.get(field), "tenant " + old + " now " + found);
        }
      }
    }

    private void deadLetters() {
      JsonNode old = manifest.get("deadLetters").get("deadLetters");
      JsonNode now =
          http.json("GET", "/admin/dead-letters?limit=1000", null, 200).get("deadLetters");
      assertTrue(old.size() > 0, "the fixture holds no dead letter");
      assertEquals(old.size(), now.size(), now.toString());
      for (JsonNode letter : old) {
        JsonNode found = find(now, "id", letter.get("id").asText());
        letter.fieldNames().forEachRemaining(f -> assertEquals(letter.get(f), found.get(f), f));
      }
    }

    private void listings() {
      for (String tenant : List.of(UpgradeFixtureScenario.DEFAULT, UpgradeFixtureScenario.ACME)) {
        List<String> expected = new ArrayList<>();
        for (JsonNode agent : manifest.get("agents")) {
          if (agent.get("tenant").asText().equals(tenant)) {
            expected.add(agent.get("agentId").asText());
          }
        }
        JsonNode page = http.json("GET", "/v1/agents?limit=1000&tenant=" + tenant, null, 200);
        List<String> listed = new ArrayList<>();
        page.get("agents").forEach(a -> listed.add(a.get("agentId").asText()));
        assertEquals(expected.stream().sorted().toList(), listed.stream().sorted().toList());
      }
    }

    private void agents() {
      String caller = group.get("caller").asText();
      for (JsonNode agent : manifest.get("agents")) {
        JsonNode old = agent.get("view");
        JsonNode now = view(agent.get("tenant").asText(), agent.get("agentId").asText());
        for (String field : AGENT_FIELDS) {
          assertEquals(old.get(field), now.get(field), field + " of " + now);
        }
        assertEquals(
            old.at("/scheduled/nextFireAt"), now.at("/scheduled/nextFireAt"), now.toString());
        assertEquals(old.at("/calls/served"), now.at("/calls/served"), now.toString());
        if (!old.get("agentId").asText().equals(caller)) {
          // The caller's inbox gets its group's replies once the deadline has passed.
          assertEquals(old.get("inbox"), now.get("inbox"), now.toString());
        }
      }
    }

    private void outsideCall() {
      JsonNode call = manifest.get("outsideCall");
      assertEquals("pending", call.at("/answer/status").asText(), call.toString());
      Instant deadline =
          Instant.parse(call.get("madeBefore").asText())
              .plusSeconds(UpgradeFixtureScenario.CALL_TIMEOUT_SECONDS);
      String path = "/v1/calls/" + call.get("callId").asText();
      if (Instant.now().isAfter(deadline.plusSeconds(1))) {
        await("the outside call timed out")
            .atMost(SOON)
            .pollInterval(Duration.ofMillis(200))
            .until(
                () -> http.json("GET", path, null, 200).get("status").asText(), "timedOut"::equals);
      } else {
        String status = http.json("GET", path, null, 200).get("status").asText();
        assertTrue(status.equals("pending") || status.equals("timedOut"), status);
      }
    }

    private void groupCall() {
      String tenant = group.get("tenant").asText();
      String caller = group.get("caller").asText();
      String pending = group.get("pendingCallId").asText();
      String answered = group.get("answeredCallId").asText();
      JsonNode old = find(manifest.get("agents"), "agentId", caller).get("view");
      if (groupTimedOut) {
        await("the group's replies in the caller's inbox")
            .atMost(SOON)
            .pollInterval(Duration.ofMillis(200))
            .until(
                () ->
                    view(tenant, caller).at("/inbox/unread").asInt()
                        == old.at("/inbox/unread").asInt() + 2);
        JsonNode now = view(tenant, caller);
        assertEquals(0, now.at("/calls/madeCount").asInt(), now.toString());
        JsonNode history =
            http.json(
                "GET", "/v1/agents/" + caller + "/history?limit=1000&tenant=" + tenant, null, 200);
        assertTrue(hasEntry(history, "call.timed-out", pending), history.toString());
        assertTrue(hasEntry(history, "call.answered", answered), history.toString());
      } else {
        JsonNode made = view(tenant, caller).at("/calls/made");
        if (made.size() == 2) {
          assertFalse(find(made, "callId", pending).get("answered").asBoolean());
          assertTrue(find(made, "callId", answered).get("answered").asBoolean());
          assertEquals(
              group.get("group").asText(), find(made, "callId", pending).get("group").asText());
        }
      }
    }

    private void leaseServedAgain() {
      JsonNode lease = manifest.get("lease");
      String agentId = lease.get("agentId").asText();
      String body =
          JSON.createObjectNode()
              .put("runnerId", "upgrade-check")
              .put("mode", "notification")
              .put("waitSeconds", 5)
              .put("leaseSeconds", 60)
              .set(
                  "capabilities",
                  JSON.createArrayNode().add(UpgradeFixtureScenario.capability(agentId)))
              .toString();
      Instant deadline = Instant.now().plus(SOON).plusSeconds(lease.get("leaseSeconds").asLong());
      JsonNode answer = http.json("POST", "/v1/claims", body, 200);
      while (!answer.get("status").asText().equals("assigned")
          && Instant.now().isBefore(deadline)) {
        answer = http.json("POST", "/v1/claims", body, 200);
      }
      assertEquals("assigned", answer.get("status").asText(), "the held lease never expired");
      JsonNode assignment = answer.get("assignment");
      assertEquals(agentId, assignment.get("agentId").asText());
      List<String> served = new ArrayList<>();
      assignment.get("notifications").forEach(n -> served.add(n.get("notificationId").asText()));
      List<String> held = new ArrayList<>();
      lease.get("notificationIds").forEach(n -> held.add(n.asText()));
      assertEquals(held, served);
      assertEquals(lease.get("attempt").asInt() + 1, assignment.get("attempt").asInt());
      http.json(
          "POST",
          "/v1/leases/" + assignment.get("leaseId").asText() + "/complete",
          "{\"runnerId\": \"upgrade-check\"}",
          200);
    }

    private JsonNode view(String tenant, String agentId) {
      return http.json("GET", UpgradeFixtureScenario.agentPath(tenant, agentId), null, 200);
    }

    private static boolean hasEntry(JsonNode history, String type, String callId) {
      for (JsonNode entry : history.get("events")) {
        if (entry.get("type").asText().equals(type)
            && callId.equals(entry.path("callId").asText())) {
          return true;
        }
      }
      return false;
    }

    private static JsonNode find(JsonNode array, String field, String value) {
      for (JsonNode element : array) {
        if (element.path(field).asText().equals(value)) {
          return element;
        }
      }
      throw new AssertionError("no " + field + " " + value + " in " + array);
    }
  }
}
