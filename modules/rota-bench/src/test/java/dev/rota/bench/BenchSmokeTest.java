package dev.rota.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.rota.bench.metrics.ProcessTreeCpu;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The whole harness at tiny sizes on the embedded PostgreSQL, for the seed SQL baseline and for
 * Rota with in-cluster runners: every workload runs on both, the three result files appear, and the
 * counts add up. No timing assertions.
 */
class BenchSmokeTest {

  @TempDir static Path resultsDir;
  static final Map<String, JsonNode> systems = new HashMap<>();
  static String console;

  @BeforeAll
  static void runQuickBench() throws Exception {
    System.setProperty("java.awt.headless", "true");
    BenchConfig.Builder config = BenchConfig.quick();
    config.systems = List.of("seed-sql", "rota");
    config.resultsDir = resultsDir;
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    try (PrintStream out = new PrintStream(captured, true, StandardCharsets.UTF_8)) {
      new BenchRun(config.build(), out).run();
    }
    console = captured.toString(StandardCharsets.UTF_8);
    JsonNode results = new ObjectMapper().readTree(resultsDir.resolve("results.json").toFile());
    for (JsonNode system : results.path("systems")) {
      systems.put(system.path("system").asText(), system);
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
    assertTrue(markdown.contains("rota ÷ seed-sql"), markdown);
    assertFalse(console.contains("FAILED"), console);
  }

  @ParameterizedTest
  @ValueSource(strings = {"seed-sql", "rota"})
  void everyWorkloadRan(String system) {
    JsonNode result = system(system);
    assertEquals("OK", result.path("status").asText(), result.toString());
    for (JsonNode workload : result.path("workloads")) {
      assertEquals("OK", workload.path("status").asText(), workload.toString());
    }
    assertEquals(4, result.path("workloads").size());
  }

  @ParameterizedTest
  @ValueSource(strings = {"seed-sql", "rota"})
  void burnDownReadsEverySeededNotification(String system) {
    JsonNode details = workload(system, "burn-down").path("details");
    assertTrue(details.path("drained").asBoolean(), details.toString());
    assertEquals(0, details.path("remainingUnread").asLong());
    assertEquals(
        details.path("seededNotifications").asLong(), details.path("notificationsRead").asLong());
    assertTrue(details.path("activations").asLong() >= details.path("agentsWithInbox").asLong());
    assertEquals(0, details.path("errors").asLong());
  }

  @ParameterizedTest
  @ValueSource(strings = {"seed-sql", "rota"})
  void backlogMeasuresEveryLevel(String system) {
    JsonNode backlog = workload(system, "backlog");
    int rates = 0;
    for (JsonNode metric : backlog.path("metrics")) {
      assertTrue(metric.path("value").asDouble() > 0, metric.toString());
      if (!metric.path("key").asText().endsWith("cpu")) {
        rates++;
      }
    }
    assertEquals(3, rates, "two levels and the flatness ratio: " + backlog.path("metrics"));
    // Both run in the bench's JVM (Rota's node, seed-sql's runner threads), so its CPU is theirs.
    assertCpuRows(backlog, List.of("cpu"));
    for (String level : List.of("r4.level200", "r4.level2000")) {
      assertSteady(backlog.path("details").path(level));
    }
  }

  /**
   * Every level of a backlog result has a CPU-per-activation row for each of {@code parts} and, on
   * Linux, for PostgreSQL and the total, which is the sum of them all.
   */
  static void assertCpuRows(JsonNode backlog, List<String> parts) {
    Map<String, Double> rows = new HashMap<>();
    for (JsonNode metric : backlog.path("metrics")) {
      rows.put(metric.path("key").asText(), metric.path("value").asDouble());
    }
    boolean proc = ProcessTreeCpu.available();
    for (String level : List.of("backlog.200", "backlog.2000")) {
      double sum = 0;
      for (String part : parts) {
        Double value = rows.get(level + "." + part);
        assertNotNull(value, level + "." + part + " in " + rows);
        sum += value;
      }
      Double postgres = rows.get(level + ".postgres-cpu");
      Double total = rows.get(level + ".total-cpu");
      if (!proc) {
        assertNull(postgres, "no /proc, no PostgreSQL row: " + rows);
        assertNull(total, "no /proc, no total row: " + rows);
        continue;
      }
      assertNotNull(postgres, level + ".postgres-cpu in " + rows);
      assertNotNull(total, level + ".total-cpu in " + rows);
      assertEquals(sum + postgres, total, 1e-9, rows.toString());
      JsonNode details = backlog.path("details").path("r4.level" + level.split("\\.")[1]);
      assertTrue(details.path("postgresCpuMillis").asDouble() > 0, details.toString());
    }
    long cpuRows = rows.keySet().stream().filter(k -> k.endsWith("cpu")).count();
    assertEquals(2L * (parts.size() + (proc ? 2 : 0)), cpuRows, rows.toString());
  }

  /**
   * A level counts only its steady part: the warm-up's activations are not in it, and unless the
   * level hit its cap, the counted part reached the quick goal (2 s and 200 activations).
   */
  static void assertSteady(JsonNode level) {
    assertEquals(0, level.path("errors").asLong(), level.toString());
    assertTrue(
        level.path("allActivations").asLong() > level.path("activations").asLong(),
        "the warm-up's activations are not counted: " + level);
    if (!level.path("capped").asBoolean()) {
      assertTrue(level.path("measuredSeconds").asDouble() >= 2.0, level.toString());
      assertTrue(level.path("activations").asLong() >= 200, level.toString());
    }
    assertTrue(level.path("topUps").asInt() > 0, "the backlog was topped up: " + level);
    assertTrue(level.path("toppedUpNotifications").asLong() > 0, level.toString());
  }

  @ParameterizedTest
  @ValueSource(strings = {"seed-sql", "rota"})
  void trickleClaimsEveryPublishedNotification(String system) {
    JsonNode details = workload(system, "trickle").path("details");
    assertTrue(details.path("warmupPublished").asLong() > 0, "a warm-up ran: " + details);
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

  @ParameterizedTest
  @ValueSource(strings = {"seed-sql", "rota"})
  void fairnessActivatesEveryAgent(String system) {
    JsonNode details = workload(system, "fairness").path("details");
    assertTrue(details.path("activations").asLong() > 0);
    assertEquals(0, details.path("neverActivated").asLong(), details.toString());
  }

  private static JsonNode system(String name) {
    JsonNode system = systems.get(name);
    assertNotNull(system, name + " missing from results: " + console);
    return system;
  }

  private static JsonNode workload(String system, String name) {
    for (JsonNode workload : system(system).path("workloads")) {
      if (workload.path("workload").asText().equals(name)) {
        return workload;
      }
    }
    throw new AssertionError("no " + name + " in " + system(system));
  }
}
