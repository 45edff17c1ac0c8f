package dev.rota.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The scale workload at quick sizes (500 agents, agents passivated after 2 s) on the embedded
 * PostgreSQL, with a Rota node in its own JVM: every figure is there and plausible, every agent was
 * registered and loaded again after the restart, and the other systems report n/a. No timing
 * thresholds. Tagged {@code long} (two minutes on two shared cores, most of it the node's JVM
 * starting three times): it runs with {@code -Pfaults}.
 */
@Tag("long")
class ScaleWorkloadTest {

  @TempDir Path resultsDir;

  @Test
  void reportsRegistrationHeapAndRestartForEveryAgent() throws Exception {
    System.setProperty("java.awt.headless", "true");
    BenchConfig.Builder config = BenchConfig.quick();
    config.systems = List.of("rota", "seed-sql");
    config.workloads = List.of("scale");
    config.resultsDir = resultsDir;
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    try (PrintStream out = new PrintStream(captured, true, StandardCharsets.UTF_8)) {
      new BenchRun(config.build(), out).run();
    }
    String console = captured.toString(StandardCharsets.UTF_8);
    JsonNode results = new ObjectMapper().readTree(resultsDir.resolve("results.json").toFile());
    Map<String, JsonNode> scale = new HashMap<>();
    for (JsonNode system : results.path("systems")) {
      scale.put(system.path("system").asText(), system.path("workloads").path(0));
    }

    JsonNode rota = scale.get("rota");
    assertEquals("OK", rota.path("status").asText(), console);
    JsonNode details = rota.path("details");
    int agents = details.path("agents").asInt();
    assertEquals(500, agents);
    assertEquals(0, details.path("registrationFailures").asLong(), details.toString());
    assertEquals(agents, details.path("agentsLoadedByCoordinators").asLong(), details.toString());

    Map<String, Double> metrics = new HashMap<>();
    for (JsonNode metric : rota.path("metrics")) {
      metrics.put(metric.path("key").asText(), metric.path("value").asDouble());
    }
    assertTrue(metrics.get("scale.registrationRate") > 0, metrics.toString());
    assertTrue(
        metrics.get("scale.registrationP50") > 0
            && metrics.get("scale.registrationP50") <= metrics.get("scale.registrationP99"),
        metrics.toString());
    // The node's whole live heap over 500 agents: a real heap (MiBs), not a parse slip (0 or TiBs).
    for (String heap :
        List.of(
            "scale.heapPerAgentRegistered",
            "scale.heapPerAgentIdle",
            "scale.heapPerAgentRestarted")) {
      double perAgent = metrics.get(heap);
      assertTrue(perAgent > 1_000 && perAgent < 2_000_000, heap + " = " + perAgent);
    }
    assertTrue(metrics.containsKey("scale.heapPerAgentIdleAboveEmpty"), metrics.toString());
    double ready = metrics.get("scale.restartToReady");
    double loaded = metrics.get("scale.restartToLoaded");
    assertTrue(ready > 0 && loaded > 0 && ready < 300 && loaded < 300, metrics.toString());

    assertEquals("NOT_APPLICABLE", scale.get("seed-sql").path("status").asText());
  }
}
