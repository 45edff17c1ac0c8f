package dev.rota.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A report to a node from before the runner's cursor, against a scripted loopback server that
 * answers as such a node does: 400 naming {@code inputSeen} as an unknown field, and nothing done.
 */
class OldNodeReportTest {
  private HttpServer server;
  private final List<String> bodies = new CopyOnWriteArrayList<>();

  @AfterEach
  void stop() {
    if (server != null) {
      server.stop(0);
    }
  }

  /** Refuses any body that carries {@code refused} as an old node would; answers 200 otherwise. */
  private RotaClient oldNode(String refused) throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext(
        "/",
        exchange -> {
          String body =
              new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
          bodies.add(body);
          boolean refuse = body.contains("\"" + refused + "\"");
          byte[] answer =
              (refuse
                      ? "{\"error\":\"invalid\",\"message\":\"unknown field '" + refused + "'\"}"
                      : "{\"leaseId\":\"l1\",\"state\":\"completed\"}")
                  .getBytes(StandardCharsets.UTF_8);
          exchange.getResponseHeaders().add("Content-Type", "application/json");
          exchange.sendResponseHeaders(refuse ? 400 : 200, answer.length);
          try (OutputStream out = exchange.getResponseBody()) {
            out.write(answer);
          }
        });
    server.start();
    return RotaClient.builder(URI.create("http://127.0.0.1:" + server.getAddress().getPort()))
        .build();
  }

  @Test
  void aCompletionAnOldNodeRefusesForInputSeenGoesOnceMoreWithoutIt() throws IOException {
    try (RotaClient client = oldNode("inputSeen")) {
      client.complete(
          "l1", "r1", JsonNodeFactory.instance.objectNode(), List.of(), List.of(), List.of("s1"));

      assertEquals(2, bodies.size(), bodies.toString());
      assertTrue(bodies.get(0).contains("\"inputSeen\":[\"s1\"]"), bodies.get(0));
      assertFalse(bodies.get(1).contains("inputSeen"), bodies.get(1));
    }
  }

  @Test
  void aFailureAnOldNodeRefusesForInputSeenGoesOnceMoreWithoutIt() throws IOException {
    try (RotaClient client = oldNode("inputSeen")) {
      client.fail("l1", "r1", Outcome.retry("model timed out"), List.of());

      assertEquals(2, bodies.size(), bodies.toString());
      assertFalse(bodies.get(1).contains("inputSeen"), bodies.get(1));
    }
  }

  @Test
  void anotherRefusalIsTheCallersAndNothingIsSentAgain() throws IOException {
    try (RotaClient client = oldNode("result")) {
      RotaException.Invalid e =
          assertThrows(
              RotaException.Invalid.class,
              () ->
                  client.complete(
                      "l1",
                      "r1",
                      JsonNodeFactory.instance.objectNode(),
                      List.of(),
                      List.of(),
                      List.of("s1")));

      assertTrue(e.getMessage().contains("unknown field 'result'"), e.getMessage());
      assertEquals(1, bodies.size(), bodies.toString());
    }
  }
}
