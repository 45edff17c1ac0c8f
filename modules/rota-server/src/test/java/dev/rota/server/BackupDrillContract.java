package dev.rota.server;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.rota.core.tenant.AgentKeys;
import dev.rota.server.testing.NodeHttp;
import dev.rota.server.testing.TestDatabase;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * The backup drill of docs/operations.md ("Backup and restore"), run by {@link BackupDrillTest} per
 * database: a backup taken with the database's own tool while a node is under load (producers,
 * in-cluster runners, a runner holding leases) is restored into a fresh database, a node is started
 * on it, and it serves every agent, unread notification, schedule, dead letter and tenant the
 * backup held — read from the restored database itself. The leases held in the backup expire and
 * their notifications are served again.
 */
abstract class BackupDrillContract {
  private static final Duration SOON = Duration.ofSeconds(30);

  /** The database the loaded node writes. */
  abstract TestDatabase newSource();

  /** Backs up {@code source}, which {@code node} is writing, to {@code backup}. */
  abstract void backUp(RotaNode node, TestDatabase source, Path backup) throws Exception;

  /** A fresh database holding what {@code backup} holds. */
  abstract TestDatabase restore(Path backup) throws Exception;

  abstract Config nodeConfig(Config extra, TestDatabase database);

  /** Releases what {@link #newSource()} and {@link #restore} started. */
  void cleanUp() throws Exception {}

  @Test
  void aBackupTakenUnderLoadRestoresEverythingItHeldAndItsLeasesExpire() throws Exception {
    Path backup = Files.createTempDirectory("rota-backup-").resolve("backup");
    try {
      takeBackupUnderLoad(backup);
      try (TestDatabase restored = restore(backup)) {
        Held held = Held.readFrom(restored);
        assertTrue(held.leases.size() > 0, "the backup holds no lease: " + held.agents);
        assertTrue(held.deadLetters.size() > 0, "the backup holds no dead letter");
        assertTrue(held.tenants().containsAll(Set.of("default", BackupDrillLoad.ACME)));
        RotaNode node =
            RotaNode.startWith(
                nodeConfig(ConfigFactory.parseMap(Map.of("rota.rescue.interval", "1s")), restored));
        try {
          NodeHttp http = new NodeHttp(node.httpPort());
          awaitReady(node);
          findsWhatWasHeld(http, held);
          servesTheHeldLeasesAgain(http, held);
        } finally {
          node.stop();
        }
      }
    } finally {
      cleanUp();
      try (var files = Files.walk(backup.getParent())) {
        files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
  }

  private void takeBackupUnderLoad(Path backup) throws Exception {
    Config busy =
        ConfigFactory.parseString(
            String.join(
                "\n",
                "rota.runners.enabled = true",
                "rota.runners.poll-wait = 1s",
                "rota.runners.lease-seconds = 5",
                "rota.runners.pools = [{ name = busy, count = 2, mode = notification,",
                "  capabilities = [], executor = noop, executor-settings { delay = 100ms } }]"));
    try (TestDatabase source = newSource()) {
      RotaNode node = RotaNode.startWith(nodeConfig(busy, source));
      try (BackupDrillLoad load = new BackupDrillLoad(new NodeHttp(node.httpPort()))) {
        awaitReady(node);
        load.prepare();
        load.start();
        await("the load under way")
            .atMost(SOON)
            .until(() -> load.accepted() > 50 && load.claimedByStuckRunner() > 0);
        backUp(node, source, backup);
        long acceptedAtBackup = load.accepted();
        await("the load going on after the backup")
            .atMost(SOON)
            .until(() -> load.accepted() > acceptedAtBackup + 20);
      } finally {
        node.stop();
      }
    }
  }

  private static void findsWhatWasHeld(NodeHttp http, Held held) {
    // The tenant directory publishes the admin's settings to the node after it starts.
    await("the tenants the backup held")
        .atMost(SOON)
        .pollInterval(Duration.ofMillis(200))
        .untilAsserted(() -> sameTenants(http, held));

    Set<String> deadLetters = new HashSet<>();
    http.json("GET", "/admin/dead-letters?limit=1000", null, 200)
        .get("deadLetters")
        .forEach(d -> deadLetters.add(d.get("id").asText()));
    assertEquals(held.deadLetters, deadLetters);

    for (Held.Agent agent : held.agents.values()) {
      JsonNode view = http.json("GET", agent.path(), null, 200);
      assertEquals(agent.unread(), view.at("/inbox/unread").asInt(), agent + " now " + view);
      assertEquals(agent.deadLetters(), view.get("deadLetters").asInt(), view.toString());
      JsonNode nextFire = view.at("/scheduled/nextFireAt");
      assertEquals(
          agent.nextFireAt(),
          nextFire.isNull() ? null : Instant.parse(nextFire.asText()),
          view.toString());
    }
  }

  private static void sameTenants(NodeHttp http, Held held) {
    JsonNode tenants = http.json("GET", "/admin/tenants", null, 200).get("tenants");
    Map<String, JsonNode> byName = new HashMap<>();
    tenants.forEach(t -> byName.put(t.get("tenant").asText(), t));
    for (String tenant : held.tenants()) {
      JsonNode found = byName.get(tenant);
      assertTrue(found != null, "tenant " + tenant + " missing from " + tenants);
      assertEquals(held.agentsOf(tenant), found.get("agents").asLong(), found.toString());
    }
    assertEquals(
        BackupDrillLoad.ACME_WEIGHT, byName.get(BackupDrillLoad.ACME).get("weight").asInt());
  }

  /**
   * Claims and completes every turn until each agent that held a lease in the backup has been
   * served again: an attempt after its lease expired, under a new lease.
   */
  private static void servesTheHeldLeasesAgain(NodeHttp http, Held held) {
    Map<String, String> waiting = new TreeMap<>(held.leases);
    Instant deadline = Instant.now().plus(SOON);
    while (!waiting.isEmpty() && Instant.now().isBefore(deadline)) {
      JsonNode answer =
          http.json(
              "POST",
              "/v1/claims",
              "{\"runnerId\": \"drill-restored\", \"mode\": \"notification\","
                  + " \"capabilities\": [\"fx-stuck\"], \"waitSeconds\": 2}",
              200);
      if (!answer.get("status").asText().equals("assigned")) {
        continue;
      }
      JsonNode assignment = answer.get("assignment");
      String key = Held.key(assignment.get("tenant").asText(), assignment.get("agentId").asText());
      String oldLease = waiting.remove(key);
      if (oldLease != null) {
        assertNotEquals(oldLease, assignment.get("leaseId").asText());
        assertTrue(assignment.get("attempt").asInt() >= 2, assignment.toString());
        assertTrue(assignment.get("notifications").size() > 0, assignment.toString());
      }
      http.json(
          "POST",
          "/v1/leases/" + assignment.get("leaseId").asText() + "/complete",
          "{\"runnerId\": \"drill-restored\"}",
          200);
    }
    assertTrue(waiting.isEmpty(), "leases never served again: " + waiting.keySet());
  }

  private static void awaitReady(RotaNode node) {
    NodeHttp management = new NodeHttp(node.managementPort());
    await("node ready")
        .atMost(SOON)
        .pollInterval(Duration.ofMillis(100))
        .until(() -> management.send("GET", "/ready", null).statusCode() == 200);
  }

  /** What a restored database holds, read from its tables before a node starts on it. */
  private record Held(
      Map<String, Agent> agents, Map<String, String> leases, Set<String> deadLetters) {

    record Agent(String key, int unread, int deadLetters, Instant nextFireAt) {
      String path() {
        return BackupDrillLoad.path(AgentKeys.tenantOf(key), AgentKeys.agentIdOf(key));
      }
    }

    static Held readFrom(TestDatabase database) throws SQLException {
      Map<String, Agent> agents = new TreeMap<>();
      Map<String, String> leases = new TreeMap<>();
      Set<String> deadLetters = new HashSet<>();
      try (Database db = database.open();
          Connection c = db.dataSource().getConnection();
          Statement s = c.createStatement()) {
        try (ResultSet rows =
            s.executeQuery(
                "select agent_id, unread, dead_letters, next_fire_at, lease_id"
                    + " from agent_schedule")) {
          while (rows.next()) {
            String key = rows.getString(1);
            Timestamp nextFire = rows.getTimestamp(4);
            agents.put(
                key,
                new Agent(
                    key,
                    rows.getInt(2),
                    rows.getInt(3),
                    nextFire == null ? null : nextFire.toInstant()));
            if (rows.getString(5) != null) {
              leases.put(key, rows.getString(5));
            }
          }
        }
        try (ResultSet rows = s.executeQuery("select id from dead_letter")) {
          while (rows.next()) {
            deadLetters.add(rows.getString(1));
          }
        }
      }
      return new Held(agents, leases, deadLetters);
    }

    static String key(String tenant, String agentId) {
      return AgentKeys.key(tenant, agentId);
    }

    Set<String> tenants() {
      Set<String> tenants = new HashSet<>();
      agents.keySet().forEach(k -> tenants.add(AgentKeys.tenantOf(k)));
      return tenants;
    }

    long agentsOf(String tenant) {
      return agents.keySet().stream().filter(k -> tenant.equals(AgentKeys.tenantOf(k))).count();
    }
  }
}
