package dev.rota.server;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.rota.server.testing.Databases;
import dev.rota.server.testing.NodeHttp;
import dev.rota.server.testing.PostgresTools;
import dev.rota.server.testing.TestDatabase;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Writes an upgrade fixture ({@code src/test/resources/upgrade/<name>/}) with the code of this
 * checkout, for {@link UpgradeFixtureTest} to read with later code: the same scenario ({@link
 * UpgradeFixtureScenario}) on a node on H2, exported with H2's {@code SCRIPT} ({@code h2.sql}), and
 * on a node on PostgreSQL {@value PostgresTools#MAJOR}, dumped with {@code pg_dump} ({@code
 * postgres.sql}); each with a manifest of what the node answered ({@code h2.json}, {@code
 * postgres.json}). The nodes are stopped before the export, with the lease still held.
 *
 * <p>A test class only in name: surefire's default patterns leave it out, so it runs only when
 * asked for, from the repository root (docs/operations.md, "Upgrades"; {@code -am} builds the node
 * from this checkout rather than from what the local repository holds):
 *
 * <pre>
 * mvn -B test -pl modules/rota-server -am -Dtest=UpgradeFixtureWriter \
 *   -Dsurefire.failIfNoSpecifiedTests=false [-Drota.upgrade-fixture=NAME]
 * </pre>
 *
 * NAME defaults to today's date and the commit.
 */
class UpgradeFixtureWriter {
  private static final ObjectMapper JSON = new ObjectMapper();

  @Test
  void writesTheFixture() throws Exception {
    String commit = git("rev-parse", "--short", "HEAD");
    String name =
        System.getProperty(
            "rota.upgrade-fixture",
            LocalDate.now(ZoneOffset.UTC) + "-" + (commit.isEmpty() ? "unknown" : commit));
    Path dir = Path.of("src/test/resources/upgrade", name);
    Files.createDirectories(dir);
    ObjectNode writtenBy = JSON.createObjectNode();
    writtenBy.put("commit", commit);
    writtenBy.put("uncommittedChanges", !git("status", "--porcelain").isEmpty());
    writtenBy.put("at", java.time.Instant.now().toString());

    try (TestDatabase h2 = Databases.h2()) {
      ObjectNode manifest = writeScenario(NodeOnDatabase.h2Config(scenarioNode(), h2));
      requireHeldLease(h2, manifest);
      try (Connection c = DriverManager.getConnection(h2.settings().url(), "sa", "");
          Statement s = c.createStatement()) {
        s.execute("SCRIPT NOPASSWORDS TO '" + dir.resolve("h2.sql").toAbsolutePath() + "'");
      }
      writeManifest(dir.resolve("h2.json"), manifest.put("database", "h2"), writtenBy);
    }
    EmbeddedPostgres server = PostgresTools.startServer();
    try (TestDatabase postgres = Databases.postgres(server)) {
      ObjectNode manifest = writeScenario(NodeOnDatabase.postgresConfig(scenarioNode(), postgres));
      requireHeldLease(postgres, manifest);
      PostgresTools.dump(postgres, dir.resolve("postgres.sql"));
      writeManifest(dir.resolve("postgres.json"), manifest.put("database", "postgres"), writtenBy);
    } finally {
      server.close();
    }
    for (String file : new String[] {"h2.sql", "h2.json", "postgres.sql", "postgres.json"}) {
      assertTrue(Files.size(dir.resolve(file)) > 0, () -> file + " was written empty");
    }
    System.out.println("upgrade fixture written to " + dir.toAbsolutePath());
  }

  private static Config scenarioNode() {
    return ConfigFactory.parseMap(
        Map.of("rota.agent.snapshot-every", UpgradeFixtureScenario.SNAPSHOT_EVERY));
  }

  private static ObjectNode writeScenario(Config config) {
    RotaNode node = RotaNode.startWith(config);
    try {
      NodeHttp management = new NodeHttp(node.managementPort());
      await("node ready")
          .atMost(Duration.ofSeconds(30))
          .until(() -> management.send("GET", "/ready", null).statusCode() == 200);
      UpgradeFixtureScenario scenario = new UpgradeFixtureScenario(new NodeHttp(node.httpPort()));
      scenario.write();
      return scenario.record();
    } finally {
      node.stop();
    }
  }

  /** The node stopped within the lease's length: the fixture must hold it. */
  private static void requireHeldLease(TestDatabase database, ObjectNode manifest)
      throws SQLException {
    String agentId = manifest.get("lease").get("agentId").asText();
    try (Database db = database.open();
        Connection c = db.dataSource().getConnection();
        PreparedStatement s =
            c.prepareStatement("select lease_id from agent_schedule where agent_id = ?")) {
      s.setString(1, agentId);
      try (ResultSet rows = s.executeQuery()) {
        assertTrue(
            rows.next() && rows.getString(1) != null,
            () -> "the lease of " + agentId + " ended before the node stopped; write it again");
      }
    }
  }

  private static void writeManifest(Path file, ObjectNode manifest, ObjectNode writtenBy)
      throws IOException {
    manifest.set("writtenBy", writtenBy);
    Files.writeString(
        file,
        JSON.writerWithDefaultPrettyPrinter().writeValueAsString(manifest) + "\n",
        StandardCharsets.UTF_8);
  }

  private static String git(String... args) {
    try {
      String[] command = new String[args.length + 1];
      command[0] = "git";
      System.arraycopy(args, 0, command, 1, args.length);
      Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
      String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      return process.waitFor() == 0 ? out.strip() : "";
    } catch (IOException e) {
      return "";
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "";
    }
  }
}
