package dev.rota.server;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.rota.server.testing.NodeHttp;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real node in its own JVM ({@link Main}, as {@code java -jar} runs it) with {@code
 * ROTA_LOG_FORMAT=json}: every line it prints on stdout and stderr, from start to stop (SIGTERM),
 * is one JSON object, and a request's access-log line carries the correlation id its error body
 * shows.
 */
class JsonLogsTest {
  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final Duration START = Duration.ofSeconds(90);
  private static final Pattern UP = Pattern.compile("Rota node up: http://127\\.0\\.0\\.1:(\\d+)");

  @Test
  void everyLineANodePrintsFromStartToStopIsJson(@TempDir Path dir) throws Exception {
    ProcessBuilder builder =
        new ProcessBuilder(
            Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "-cp",
            System.getProperty("java.class.path"),
            // the production logging config, not this module's logback-test.xml
            "-Dlogback.configurationFile=logback.xml",
            "-Xmx384m",
            Main.class.getName());
    Map<String, String> env = builder.environment();
    env.put("ROTA_LOG_FORMAT", "json");
    env.put("ROTA_DATA_DIR", dir.resolve("data").toString());
    env.put("ROTA_HTTP_PORT", "0");
    env.put("ROTA_MANAGEMENT_PORT", "0");
    env.put("ROTA_CLUSTER_PORT", "0");
    env.put("ROTA_DB_MAX_POOL_SIZE", "3");
    // Files, not pipes: a pipe read when the process exits may fail ("Stream closed").
    Path stdoutFile = dir.resolve("stdout.log");
    Path stderrFile = dir.resolve("stderr.log");
    builder.redirectOutput(stdoutFile.toFile()).redirectError(stderrFile.toFile());
    Process node = builder.start();
    try {
      int port = awaitPort(node, stdoutFile, stderrFile);
      NodeHttp api = new NodeHttp(port);
      // The port is bound before the node is ready: until then it answers 503 (retry later).
      await("the node serving")
          .atMost(Duration.ofSeconds(60))
          .pollDelay(Duration.ZERO)
          .pollInterval(Duration.ofMillis(200))
          .until(
              () ->
                  api.send("PUT", "/v1/agents/json-logs", "{\"capabilities\":[\"json\"]}")
                          .statusCode()
                      != 503);
      api.agentWithInbox("json-logs", "json", 1);
      HttpResponse<String> missing = api.send("GET", "/v1/agents/nobody-here", null);
      assertEquals(404, missing.statusCode());
      String correlationId = MAPPER.readTree(missing.body()).get("correlationId").asText();
      assertEquals(correlationId, missing.headers().firstValue("X-Correlation-Id").orElse(null));

      node.destroy(); // SIGTERM: CoordinatedShutdown, as a supervisor stops it
      assertTrue(node.waitFor(90, TimeUnit.SECONDS), "the node did not stop on SIGTERM");
      List<String> stdout = Files.readAllLines(stdoutFile);
      List<String> stderr = Files.readAllLines(stderrFile);

      List<String> notJson = new ArrayList<>();
      List<JsonNode> lines = new ArrayList<>();
      for (String line : concat(stdout, stderr)) {
        try {
          JsonNode json = MAPPER.readTree(line);
          if (json == null || !json.isObject()) {
            notJson.add(line);
          } else {
            lines.add(json);
          }
        } catch (Exception e) {
          notJson.add(line);
        }
      }
      assertEquals(List.of(), notJson, "lines that are not JSON objects");
      assertTrue(lines.size() > 10, "too few lines: " + lines);
      assertTrue(
          lines.stream().anyMatch(l -> l.path("message").asText().startsWith("Rota node stopped")),
          "no stop line: " + lines);
      JsonNode access =
          lines.stream()
              .filter(l -> l.path("logger_name").asText().equals("dev.rota.http.access"))
              .filter(l -> l.path("message").asText().contains("/v1/agents/nobody-here"))
              .findFirst()
              .orElseThrow(() -> new AssertionError("no access log line: " + lines));
      assertEquals(correlationId, access.path("correlationId").asText(), access.toString());
      assertEquals(404, access.path("status").asInt(), access.toString());
    } finally {
      node.destroyForcibly();
    }
  }

  private static int awaitPort(Process node, Path stdoutFile, Path stderrFile) throws IOException {
    try {
      return await()
          .atMost(START)
          .pollDelay(Duration.ZERO)
          .pollInterval(Duration.ofMillis(100))
          .until(() -> announcedPort(node, stdoutFile, stderrFile), port -> port > 0);
    } catch (ConditionTimeoutException e) {
      // reported below with the node's output
    }
    throw new AssertionError(
        "the node did not come up:\n"
            + String.join(
                "\n", concat(Files.readAllLines(stdoutFile), Files.readAllLines(stderrFile))));
  }

  /** The port the node's log announces, 0 before it does; fails if the node exited. */
  private static int announcedPort(Process node, Path stdoutFile, Path stderrFile)
      throws IOException {
    List<String> stdout = Files.readAllLines(stdoutFile);
    for (String line : stdout) {
      Matcher m = UP.matcher(line);
      if (m.find()) {
        return Integer.parseInt(m.group(1));
      }
    }
    if (!node.isAlive()) {
      throw new AssertionError(
          "the node exited with "
              + node.exitValue()
              + ":\n"
              + String.join("\n", concat(stdout, Files.readAllLines(stderrFile))));
    }
    return 0;
  }

  private static List<String> concat(List<String> a, List<String> b) {
    List<String> all = new ArrayList<>(a);
    all.addAll(b);
    return all;
  }
}
