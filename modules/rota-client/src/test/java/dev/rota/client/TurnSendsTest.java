package dev.rota.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.rota.client.testing.Eventually;
import dev.rota.client.testing.ScriptedServer;
import dev.rota.client.testing.ScriptedServer.Answer;
import dev.rota.client.testing.ScriptedServer.Request;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * What a turn's sends and calls put on the wire, read from a scripted server that grants one turn
 * and records its report: a real node applies the report, so its exact body is seen only here.
 */
class TurnSendsTest {
  private static final Duration WAIT = Duration.ofSeconds(20);

  /** Grants lease l1 to the first claim, then answers every claim and report with no work. */
  private static ScriptedServer oneTurn() {
    AtomicBoolean granted = new AtomicBoolean();
    Instant now = Instant.now();
    String assignment =
        "{\"status\":\"assigned\",\"assignment\":{\"leaseId\":\"l1\",\"agentId\":\"boss\","
            + "\"kind\":\"inbox\",\"attempt\":1,\"grantedAt\":\""
            + now
            + "\",\"expiresAt\":\""
            + now.plusSeconds(60)
            + "\",\"notifications\":[],\"agent\":{\"name\":\"boss\"}}}";
    return new ScriptedServer(
        request -> {
          if (request.uri().startsWith("/v1/claims")) {
            return new Answer(200, granted.getAndSet(true) ? "{\"status\":\"none\"}" : assignment);
          }
          return new Answer(
              200, "{\"completedAt\":\"" + now + "\",\"next\":{\"status\":\"none\"}}");
        });
  }

  private static JsonNode report(ScriptedServer server) {
    Request report =
        Eventually.await(
            "the turn's report",
            WAIT,
            () ->
                server.requests().stream()
                    .filter(r -> r.uri().startsWith("/v1/leases/l1/"))
                    .findFirst()
                    .orElse(null));
    try {
      return ((ObjectNode) Json.MAPPER.readTree(report.body())).put("path", report.uri());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static RotaRunner run(ScriptedServer server, ActivationHandler handler) {
    RotaClient client = RotaClient.builder(server.uri()).build();
    return RotaRunner.builder(client, handler).runnerId("r1").waitSeconds(0).start();
  }

  @Test
  void aCompletedTurnCarriesItsSendsAndCallsInOrder() {
    try (ScriptedServer server = oneTurn();
        RotaRunner runner =
            run(
                server,
                activation -> {
                  activation.send("worker-1", "task", Json.MAPPER.readTree("{\"n\":1}"));
                  activation.call(
                      "worker-2",
                      Notification.of("task").dedupeKey("t2"),
                      CallOptions.timeout(Duration.ofMinutes(5)).group("all"));
                  activation.call("worker-3", "task", null, null);
                  return Outcome.complete(Json.MAPPER.readTree("{\"ok\":true}"));
                })) {
      JsonNode body = report(server);

      assertEquals("/v1/leases/l1/complete", body.path("path").asText());
      assertEquals("r1", body.path("runnerId").asText());
      assertEquals(true, body.path("result").path("ok").asBoolean());
      JsonNode sends = body.path("send");
      assertEquals(3, sends.size(), sends.toString());
      assertEquals(
          Json.MAPPER
              .createObjectNode()
              .put("agentId", "worker-1")
              .put("type", "task")
              .set("payload", Json.MAPPER.createObjectNode().put("n", 1)),
          sends.get(0));
      assertEquals("worker-2", sends.get(1).path("agentId").asText());
      assertEquals("t2", sends.get(1).path("dedupeKey").asText());
      assertEquals(300, sends.get(1).path("call").path("timeoutSeconds").asInt());
      assertEquals("all", sends.get(1).path("call").path("group").asText());
      assertEquals("{}", sends.get(2).path("call").toString());
      assertFalse(sends.get(2).has("payload"));
    }
  }

  @Test
  void aFailedTurnSendsNothing() {
    try (ScriptedServer server = oneTurn();
        RotaRunner runner =
            run(
                server,
                activation -> {
                  activation.send("worker-1", "task", null);
                  activation.call("worker-2", "task", null, CallOptions.defaults());
                  throw new IllegalStateException("the model is down");
                })) {
      JsonNode body = report(server);

      assertEquals("/v1/leases/l1/fail", body.path("path").asText());
      assertEquals("retry", body.path("action").asText());
      assertFalse(body.has("send"), body.toString());
    }
  }

  @Test
  void aSendAfterTheTurnReturnedIsRefused() {
    AtomicReference<Activation> kept = new AtomicReference<>();
    try (ScriptedServer server = oneTurn();
        RotaRunner runner =
            run(
                server,
                activation -> {
                  kept.set(activation);
                  return Outcome.complete();
                })) {
      JsonNode body = report(server);

      assertFalse(body.has("send"), body.toString());
      assertThrows(IllegalStateException.class, () -> kept.get().send("late", "task", null));
      assertEquals(List.of(), kept.get().sends().items());
    }
  }
}
