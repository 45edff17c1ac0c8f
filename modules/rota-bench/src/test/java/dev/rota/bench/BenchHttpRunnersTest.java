package dev.rota.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code rota-http} at quick sizes, backlog and trickle: its runners run in a JVM of their own and
 * report every claim and completion back, so the counts add up exactly as with in-cluster runners,
 * and the runners' CPU is reported apart from the node's. No timing assertions. Tagged {@code long}
 * (over a minute on two shared cores): it runs with {@code -Pfaults}; the default build keeps the
 * runners' line protocol ({@code RunnerLinesTest}) and the quick run of the other systems ({@code
 * BenchSmokeTest}).
 */
@Tag("long")
class BenchHttpRunnersTest {

  @TempDir static Path resultsDir;
  static JsonNode system;
  static String console;

  @BeforeAll
  static void runQuickBench() throws Exception {
    System.setProperty("java.awt.headless", "true");
    BenchConfig.Builder config = BenchConfig.quick();
    config.systems = List.of("rota-http");
    config.workloads = List.of("backlog", "trickle");
    config.resultsDir = resultsDir;
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    try (PrintStream out = new PrintStream(captured, true, StandardCharsets.UTF_8)) {
      new BenchRun(config.build(), out).run();
    }
    console = captured.toString(StandardCharsets.UTF_8);
    JsonNode results = new ObjectMapper().readTree(resultsDir.resolve("results.json").toFile());
    for (JsonNode s : results.path("systems")) {
      if (s.path("system").asText().equals("rota-http")) {
        system = s;
      }
    }
    assertNotNull(system, console);
  }

  @Test
  void backlogReportsTheNodesAndTheRunnersCpuApart() {
    JsonNode backlog = workload("backlog");
    assertEquals("OK", backlog.path("status").asText(), backlog.toString());
    int nodeCpu = 0;
    int runnerCpu = 0;
    for (JsonNode metric : backlog.path("metrics")) {
      String key = metric.path("key").asText();
      assertTrue(metric.path("value").asDouble() > 0, metric.toString());
      nodeCpu += key.endsWith(".cpu") ? 1 : 0;
      runnerCpu += key.endsWith(".runner-cpu") ? 1 : 0;
    }
    assertEquals(2, nodeCpu, backlog.path("metrics").toString());
    assertEquals(2, runnerCpu, backlog.path("metrics").toString());
    // The total is the node's (bench JVM), the runners' JVM and PostgreSQL's.
    BenchSmokeTest.assertCpuRows(backlog, List.of("cpu", "runner-cpu"));
    for (String level : List.of("r4.level200", "r4.level2000")) {
      JsonNode details = backlog.path("details").path(level);
      BenchSmokeTest.assertSteady(details);
      assertTrue(details.path("runnerJvmCpuMillis").asDouble() > 0, details.toString());
    }
  }

  @Test
  void trickleClaimsEveryPublishedNotificationThroughTheRunnerProcess() {
    JsonNode trickle = workload("trickle");
    assertEquals("OK", trickle.path("status").asText(), trickle.toString());
    for (String rate : List.of("rate50", "rate200")) {
      JsonNode phase = trickle.path("details").path(rate);
      assertTrue(phase.path("published").asLong() > 0, phase.toString());
      assertEquals(0, phase.path("publishFailures").asLong(), phase.toString());
      assertEquals(
          phase.path("published").asLong(), phase.path("claimed").asLong(), phase.toString());
      assertEquals(0, phase.path("unclaimed").asLong(), phase.toString());
    }
  }

  private static JsonNode workload(String name) {
    for (JsonNode workload : system.path("workloads")) {
      if (workload.path("workload").asText().equals(name)) {
        return workload;
      }
    }
    throw new AssertionError("no " + name + " in " + system + "\n" + console);
  }
}
