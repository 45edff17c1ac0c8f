package dev.rota.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.rota.bench.report.BenchResults;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A system that cannot run here is said so, and the others are still run and reported: graphile
 * with a Node.js that does not exist, next to the seed SQL baseline.
 */
class BenchSkipTest {

  @TempDir Path resultsDir;
  @TempDir Path workDir;

  @Test
  void graphileWithoutNodeIsReportedSkippedAndTheOthersRun() throws Exception {
    System.setProperty("java.awt.headless", "true");
    String missingNode = workDir.resolve("no-such-node").toString();
    BenchConfig.Builder config = BenchConfig.quick();
    config.systems = List.of("graphile", "graphile-tuned", "seed-sql");
    config.workloads = List.of("fairness");
    config.resultsDir = resultsDir;
    config.workDir = workDir;
    config.systemOptions.put("graphile.node", missingNode);
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    BenchResults results;
    try (PrintStream out = new PrintStream(captured, true, StandardCharsets.UTF_8)) {
      results = new BenchRun(config.build(), out).run();
    }
    String console = captured.toString(StandardCharsets.UTF_8);

    assertFalse(results.anyFailed(), console);
    for (String graphile : List.of("graphile", "graphile-tuned")) {
      assertTrue(
          console.contains("SKIPPED " + graphile + ": Node.js not found at " + missingNode),
          console);
    }
    Map<String, JsonNode> systems = new HashMap<>();
    for (JsonNode system :
        new ObjectMapper().readTree(resultsDir.resolve("results.json").toFile()).path("systems")) {
      systems.put(system.path("system").asText(), system);
    }
    assertEquals("SKIPPED", systems.get("graphile").path("status").asText());
    assertTrue(systems.get("graphile").path("reason").asText().contains(missingNode));
    JsonNode seedSql = systems.get("seed-sql");
    assertEquals("OK", seedSql.path("status").asText(), seedSql.toString());
    assertEquals(1, seedSql.path("workloads").size());
    assertTrue(
        seedSql.path("workloads").get(0).path("details").path("activations").asLong() > 0,
        seedSql.toString());
    String markdown = Files.readString(resultsDir.resolve("results.md"));
    assertTrue(markdown.contains("graphile"), markdown);
    assertTrue(markdown.toLowerCase().contains("skipped"), markdown);
  }
}
