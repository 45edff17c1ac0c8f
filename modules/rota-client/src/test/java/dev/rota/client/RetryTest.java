package dev.rota.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Retries, against a scripted loopback server: a real node cannot be made to answer 503 on cue. */
class RetryTest {
  private HttpServer server;
  private final List<String> bodies = new CopyOnWriteArrayList<>();
  private final AtomicInteger calls = new AtomicInteger();

  @AfterEach
  void stop() {
    if (server != null) {
      server.stop(0);
    }
  }

  /** Answers 503 with Retry-After 0 {@code unavailable} times, then 202. */
  private RotaClient serverFailing(int unavailable) throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext(
        "/",
        exchange -> {
          bodies.add(new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
          boolean fail = calls.incrementAndGet() <= unavailable;
          byte[] body =
              (fail
                      ? "{\"error\":\"unavailable\",\"message\":\"store not ready\"}"
                      : "{\"notificationId\":\"n1\",\"unread\":1,\"duplicate\":false}")
                  .getBytes(StandardCharsets.UTF_8);
          if (fail) {
            exchange.getResponseHeaders().add("Retry-After", "0");
          }
          exchange.sendResponseHeaders(fail ? 503 : 202, body.length);
          try (OutputStream out = exchange.getResponseBody()) {
            out.write(body);
          }
        });
    server.start();
    return RotaClient.builder(URI.create("http://127.0.0.1:" + server.getAddress().getPort()))
        .backoff(Duration.ofMillis(10), Duration.ofMillis(50))
        .build();
  }

  @Test
  void retriesANotificationOn503WithTheSameDedupeKey() throws IOException {
    try (RotaClient client = serverFailing(2)) {
      NotifyResult result = client.notify("a1", Notification.of("mention").dedupeKey("k1"));

      assertEquals("n1", result.notificationId());
      assertEquals(3, calls.get());
      assertEquals(3, bodies.size());
      assertTrue(
          bodies.stream().allMatch(b -> b.contains("\"dedupeKey\":\"k1\"")), bodies.toString());
    }
  }

  @Test
  void givesUpAfterItsRetriesWithTheServersError() throws IOException {
    try (RotaClient client = serverFailing(100)) {
      RotaException.Unavailable e =
          assertThrows(
              RotaException.Unavailable.class,
              () -> client.notify("a1", Notification.of("mention").dedupeKey("k1")));
      assertEquals(5, calls.get(), "the first try and 4 retries");
      assertEquals(Duration.ZERO, e.retryAfter().orElseThrow());
    }
  }

  @Test
  void reportsARefusedConnectionAsNotSent() throws IOException {
    int closedPort;
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      closedPort = socket.getLocalPort();
    }
    try (RotaClient client =
        RotaClient.builder(URI.create("http://127.0.0.1:" + closedPort))
            .retries(1)
            .backoff(Duration.ofMillis(10), Duration.ofMillis(10))
            .build()) {
      RotaException.Connection e =
          assertThrows(RotaException.Connection.class, () -> client.stats());
      assertFalse(e.requestSent());
      assertEquals(0, e.status());
    }
  }

  @Test
  void aNotificationWithoutAKeyAcceptedThenAnswered503IsStoredOnceWhenRetried() throws IOException {
    // A node that accepts the first request, then answers 503 as an answer that ran out of time
    // does; it stores notifications by dedupeKey, as a node does.
    java.util.Map<String, String> stored = new java.util.concurrent.ConcurrentHashMap<>();
    List<String> storedWithoutKey = new CopyOnWriteArrayList<>();
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext(
        "/",
        exchange -> {
          String request =
              new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
          bodies.add(request);
          var json = Json.MAPPER.readTree(request);
          boolean duplicate = false;
          if (json.hasNonNull("dedupeKey")) {
            duplicate = stored.putIfAbsent(json.get("dedupeKey").asText(), request) != null;
          } else {
            storedWithoutKey.add(request);
          }
          boolean first = calls.incrementAndGet() == 1;
          byte[] body =
              (first
                      ? "{\"error\":\"unavailable\",\"message\":\"the request took too long to"
                          + " answer; it may or may not have taken effect: retry it\"}"
                      : "{\"notificationId\":\"n1\",\"unread\":1,\"duplicate\":" + duplicate + "}")
                  .getBytes(StandardCharsets.UTF_8);
          if (first) {
            exchange.getResponseHeaders().add("Retry-After", "0");
          }
          exchange.sendResponseHeaders(first ? 503 : 202, body.length);
          try (OutputStream out = exchange.getResponseBody()) {
            out.write(body);
          }
        });
    server.start();
    try (RotaClient client =
        RotaClient.builder(URI.create("http://127.0.0.1:" + server.getAddress().getPort()))
            .backoff(Duration.ofMillis(10), Duration.ofMillis(50))
            .build()) {
      NotifyResult result = client.notify("a1", Notification.of("mention"));

      assertEquals(2, calls.get(), "tried again after the 503");
      assertTrue(result.duplicate(), "the retry was answered as the duplicate it is");
      assertEquals(1, stored.size() + storedWithoutKey.size(), "stored once: " + bodies);
      String key0 = Json.MAPPER.readTree(bodies.get(0)).path("dedupeKey").asText(null);
      String key1 = Json.MAPPER.readTree(bodies.get(1)).path("dedupeKey").asText(null);
      assertTrue(key0 != null && key0.startsWith("sdk-"), bodies.get(0));
      assertEquals(key0, key1, "the retry carries the first try's key");

      client.notify("a1", Notification.of("mention"));
      String key2 = Json.MAPPER.readTree(bodies.get(2)).path("dedupeKey").asText(null);
      assertFalse(key0.equals(key2), "each notification gets a key of its own");
    }
  }
}
