package dev.rota.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

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
 * Deferred answers on the wire: a turn sees every call it may answer (carried, and owed from
 * earlier turns) and its completion names the ones it defers, read from a scripted server that
 * grants one turn and records its report.
 */
class TurnDeferTest {
  private static final Duration WAIT = Duration.ofSeconds(20);

  /** Grants lease l1 (carrying call c-new, owing call c-old) to the first claim. */
  private static ScriptedServer oneTurnOwingCalls() {
    AtomicBoolean granted = new AtomicBoolean();
    Instant now = Instant.now();
    String assignment =
        "{\"status\":\"assigned\",\"assignment\":{\"leaseId\":\"l1\",\"agentId\":\"b\","
            + "\"kind\":\"inbox\",\"attempt\":1,\"grantedAt\":\""
            + now
            + "\",\"expiresAt\":\""
            + now.plusSeconds(60)
            + "\",\"notifications\":[{\"notificationId\":\"n1\",\"type\":\"question\","
            + "\"payload\":{},\"receivedAt\":\""
            + now
            + "\",\"attempt\":1,\"call\":{\"callId\":\"c-new\","
            + "\"from\":{\"tenant\":\"default\",\"agentId\":\"a\"},\"depth\":1}}],"
            + "\"owes\":[{\"callId\":\"c-old\",\"from\":{\"tenant\":\"default\",\"agentId\":\"z\"},"
            + "\"depth\":2}],\"agent\":{\"name\":\"b\"}}}";
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
  void aTurnSeesTheCallsItOwesAndItsCompletionNamesThoseItDefers() {
    AtomicReference<List<CallInfo>> owes = new AtomicReference<>();
    try (ScriptedServer server = oneTurnOwingCalls();
        RotaRunner runner =
            run(
                server,
                activation -> {
                  owes.set(activation.owes());
                  activation.call("c", "question", null, null);
                  activation.defer("c-new");
                  return Outcome.complete(Json.MAPPER.readTree("{\"step\":1}"));
                })) {
      JsonNode body = report(server);

      assertEquals(List.of("c-new", "c-old"), owes.get().stream().map(CallInfo::callId).toList());
      assertEquals("z", owes.get().get(1).from().agentId());
      assertEquals(2, owes.get().get(1).depth());
      assertEquals("/v1/leases/l1/complete", body.path("path").asText());
      assertEquals("[\"c-new\"]", body.path("defer").toString());
      assertEquals(1, body.path("send").size());
    }
  }

  @Test
  void deferAllDefersEveryCallAndAFailedTurnDefersNothing() {
    try (ScriptedServer server = oneTurnOwingCalls();
        RotaRunner runner =
            run(
                server,
                activation -> {
                  activation.deferAll();
                  return Outcome.complete();
                })) {
      assertEquals("[\"c-new\",\"c-old\"]", report(server).path("defer").toString());
    }
    try (ScriptedServer server = oneTurnOwingCalls();
        RotaRunner runner =
            run(
                server,
                activation -> {
                  activation.deferAll();
                  throw new IllegalStateException("down");
                })) {
      JsonNode body = report(server);
      assertEquals("/v1/leases/l1/fail", body.path("path").asText());
      assertFalse(body.has("defer"), body.toString());
    }
  }
}
