package dev.rota.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The whole harness at tiny sizes, seed SQL only, on the embedded PostgreSQL: every workload runs,
 * the three result files appear, and the counts add up. No timing assertions.
 */
class BenchSmokeTest {

  @TempDir static Path resultsDir;
  static JsonNode seedSql;
  static JsonNode rota;
  static String console;

  @BeforeAll
  static void runQuickBench() throws Exception {
    System.setProperty("java.awt.headless", "true");
    BenchConfig.Builder config = BenchConfig.quick();
    config.systems = List.of("seed-sql", "rota", "rota-http");
    config.resultsDir = resultsDir;
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    try (PrintStream out = new PrintStream(captured, true, StandardCharsets.UTF_8)) {
      new BenchRun(config.build(), out).run();
    }
    console = captured.toString(StandardCharsets.UTF_8);
    JsonNode results = new ObjectMapper().readTree(resultsDir.resolve("results.json").toFile());
    for (JsonNode system : results.path("systems")) {
      if (system.path("system").asText().equals("seed-sql")) {
        seedSql = system;
      }
      if (system.path("system").asText().equals("rota")) {
        rota = system;
      }
    }
  }

  @Test
  void writesJsonMarkdownAndChart() throws Exception {
    for (String file : List.of("results.json", "results.md", "results.png")) {
      assertTrue(Files.size(resultsDir.resolve(file)) > 0, file + " written");
    }
    byte[] png = Files.readAllBytes(resultsDir.resolve("results.png"));
    assertEquals((byte) 0x89, png[0], "results.png is a PNG");
    assertEquals('P', png[1], "results.png is a PNG");
    String markdown = Files.readString(resultsDir.resolve("results.md"));
    assertTrue(markdown.contains("| burn-down |"), markdown);
  }

  @Test
  void everyWorkloadRanOnTheBaseline() {
    assertEquals("OK", seedSql.path("status").asText());
    for (JsonNode workload : seedSql.path("workloads")) {
      assertEquals("OK", workload.path("status").asText(), workload.toString());
    }
    assertEquals(4, seedSql.path("workloads").size());
  }

  @Test
  void burnDownReadsEverySeededNotification() {
    JsonNode details = workload("burn-down").path("details");
    assertTrue(details.path("drained").asBoolean(), details.toString());
    assertEquals(0, details.path("remainingUnread").asLong());
    assertEquals(
        details.path("seededNotifications").asLong(), details.path("notificationsRead").asLong());
    assertTrue(details.path("activations").asLong() >= details.path("agentsWithInbox").asLong());
    assertEquals(0, details.path("errors").asLong());
  }

  @Test
  void backlogMeasuresEveryLevel() {
    JsonNode backlog = workload("backlog");
    assertEquals(3, backlog.path("metrics").size(), "two levels and the flatness ratio");
    for (JsonNode metric : backlog.path("metrics")) {
      assertTrue(metric.path("value").asDouble() > 0, metric.toString());
    }
  }

  @Test
  void trickleClaimsEveryPublishedNotification() {
    JsonNode details = workload("trickle").path("details");
    for (String rate : List.of("rate50", "rate200")) {
      JsonNode phase = details.path(rate);
      assertTrue(phase.path("published").asLong() > 0, phase.toString());
      assertEquals(0, phase.path("publishFailures").asLong(), phase.toString());
      assertEquals(
          phase.path("published").asLong(), phase.path("claimed").asLong(), phase.toString());
      assertEquals(0, phase.path("unclaimed").asLong(), phase.toString());
      assertEquals(phase.path("claimed").asLong(), phase.path("latencySamples").asLong());
    }
  }

  @Test
  void fairnessActivatesEveryAgent() {
    JsonNode details = workload("fairness").path("details");
    assertTrue(details.path("activations").asLong() > 0);
    assertEquals(0, details.path("neverActivated").asLong(), details.toString());
  }

  @Test
  void unavailableSystemIsReportedNotDropped() {
    assertTrue(console.contains("SKIPPED rota-http:"), console);
    assertTrue(console.contains("rota-bench"), console);
    assertFalse(console.contains("FAILED"), console);
  }

  @Test
  void rotaRanEveryWorkloadToo() {
    assertTrue(rota != null, console);
    for (String name : List.of("burn-down", "backlog", "trickle", "fairness")) {
      JsonNode workload = workloadOf(rota, name);
      assertTrue(workload != null, name + " missing for rota: " + rota);
      assertFalse(workload.path("status").asText().equalsIgnoreCase("failed"), workload.toString());
    }
    JsonNode fairness = workloadOf(rota, "fairness").path("details");
    assertTrue(fairness.path("activations").asLong() > 0, fairness.toString());
  }

  private static JsonNode workloadOf(JsonNode system, String name) {
    for (JsonNode workload : system.path("workloads")) {
      if (workload.path("workload").asText().equals(name)) {
        return workload;
      }
    }
    return null;
  }

  private static JsonNode workload(String name) {
    for (JsonNode workload : seedSql.path("workloads")) {
      if (workload.path("workload").asText().equals(name)) {
        return workload;
      }
    }
    throw new AssertionError("no " + name + " in " + seedSql);
  }
}
