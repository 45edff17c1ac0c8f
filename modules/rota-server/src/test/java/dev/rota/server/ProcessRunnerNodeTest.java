package dev.rota.server;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigValueFactory;
import dev.rota.server.testing.Databases;
import dev.rota.server.testing.TestDatabase;
import java.io.File;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.pekko.actor.testkit.typed.javadsl.LogCapturingExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The shipped overlay config/process-runners.conf: a node whose in-cluster runners run the example
 * script for every activation, so notifications posted over HTTP are processed without any external
 * runner.
 */
@ExtendWith(LogCapturingExtension.class)
class ProcessRunnerNodeTest {
  private static final Duration TIMEOUT = Duration.ofSeconds(30);
  private final HttpClient http = HttpClient.newHttpClient();

  @Test
  void processRunnersHandleNotificationsPostedOverHttp(@TempDir Path dir) throws Exception {
    Path log = dir.resolve("activations.log");
    Path repository = RotaConfigTest.OVERLAYS.getParent().toAbsolutePath().normalize();
    Config overlay =
        ConfigFactory.parseFile(
            new File(RotaConfigTest.OVERLAYS.resolve("process-runners.conf").toString()));
    Config overrides =
        RotaNodeContract.TEST_NODE
            .withValue(
                "rota.runners.process.working-dir",
                ConfigValueFactory.fromAnyRef(repository.toString()))
            .withValue(
                "rota.runners.process.env.ROTA_EXAMPLE_LOG",
                ConfigValueFactory.fromAnyRef(log.toString()))
            // The sandboxed script may write there and nowhere else outside its own directory.
            .withValue(
                "rota.runners.process.sandbox-writable-paths",
                ConfigValueFactory.fromIterable(List.of(dir.toString())));
    try (TestDatabase database = Databases.h2();
        RotaNode node =
            RotaNode.startWith(
                RotaConfig.load(
                    overrides.withFallback(overlay).withFallback(database.config()), Map.of()))) {
      int port = node.httpPort();
      // 201, or 200 if the client retried the idempotent PUT on a slow machine.
      int registered = send(port, "PUT", "/v1/agents/scripted", "{}").statusCode();
      assertTrue(registered == 201 || registered == 200, "PUT answered " + registered);
      for (int i = 0; i < 2; i++) {
        assertEquals(
            202,
            send(port, "POST", "/v1/agents/scripted/notifications", "{\"type\":\"mention\"}")
                .statusCode());
      }
      JsonNode agent = awaitActivated(port, "scripted");
      assertEquals(0, agent.get("inbox").get("unread").asInt());
      List<String> lines = Files.readAllLines(log);
      assertTrue(!lines.isEmpty(), "the script never ran");
      assertTrue(lines.get(0).contains("scripted inbox attempt=1"), lines.toString());
      JsonNode history =
          new ObjectMapper()
              .readTree(send(port, "GET", "/v1/agents/scripted/history", null).body())
              .get("events");
      assertTrue(history.toString().contains("activation.completed"), history.toString());
    }
  }

  private JsonNode awaitActivated(int port, String agentId) {
    return await(agentId + " activated with nothing unread")
        .atMost(TIMEOUT)
        .pollDelay(Duration.ZERO)
        .pollInterval(Duration.ofMillis(100))
        .until(
            () ->
                new ObjectMapper()
                    .readTree(send(port, "GET", "/v1/agents/" + agentId, null).body()),
            agent ->
                agent.get("activationCount").asInt() > 0
                    && agent.get("inbox").get("unread").asInt() == 0);
  }

  private HttpResponse<String> send(int port, String method, String path, String body)
      throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
            .timeout(TIMEOUT)
            .header("Content-Type", "application/json")
            .method(
                method,
                body == null
                    ? HttpRequest.BodyPublishers.noBody()
                    : HttpRequest.BodyPublishers.ofString(body))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }
}
