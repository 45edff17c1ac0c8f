package dev.rota.faults.soak;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.rota.faults.history.Event.Granted;
import dev.rota.faults.history.History;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The turns of the node's own runners: their pool's executor is {@code http}, and every agent's
 * {@code metadata.webhookUrl} is this server, so each in-cluster activation is a POST of its
 * assignment here. The server records it as a {@link Granted} (runner {@value #RUNNER}), works for
 * 20–150 ms and answers 200, upon which the runner completes the lease inside the node. Whether
 * that completion was accepted only the node knows: {@link CompletionFeed} reads it from the events
 * stream.
 */
final class WebhookTurns implements AutoCloseable {
  static final String RUNNER = "in-cluster";
  private static final ObjectMapper JSON = new ObjectMapper();

  private final History history;
  private final int node;
  private final HttpServer server;
  private final ExecutorService workers;
  private final Set<String> leases = ConcurrentHashMap.newKeySet();

  WebhookTurns(History history, int node, int runners) {
    this.history = history;
    this.node = node;
    try {
      server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 64);
    } catch (IOException e) {
      throw new IllegalStateException("cannot open the soak's webhook: " + e, e);
    }
    workers = Executors.newFixedThreadPool(Math.max(2, runners + 2));
    server.setExecutor(workers);
    server.createContext("/hook", this::turn);
    server.start();
  }

  int port() {
    return server.getAddress().getPort();
  }

  /** The URL agents carry as {@code metadata.webhookUrl}. */
  String url() {
    return "http://127.0.0.1:" + port() + "/hook";
  }

  /** Whether an in-cluster runner was granted {@code leaseId}. */
  boolean granted(String leaseId) {
    return leases.contains(leaseId);
  }

  /** The leases in-cluster runners were granted so far. */
  Set<String> leases() {
    return Set.copyOf(leases);
  }

  private void turn(HttpExchange exchange) throws IOException {
    long received = System.currentTimeMillis();
    int status = 200;
    try {
      JsonNode assignment = JSON.readTree(exchange.getRequestBody());
      List<String> keys = new ArrayList<>();
      for (JsonNode n : assignment.path("notifications")) {
        if (n.path("payload").has("k")) {
          keys.add(n.path("payload").path("k").asText());
        }
      }
      String leaseId = assignment.path("leaseId").asText();
      leases.add(leaseId);
      history.add(
          new Granted(
              RUNNER,
              node,
              leaseId,
              assignment.path("agentId").asText(),
              millis(assignment.path("grantedAt").asText()),
              millis(assignment.path("expiresAt").asText()),
              keys,
              received,
              received));
      Thread.sleep(ThreadLocalRandom.current().nextLong(20, 150));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      status = 503;
    } catch (RuntimeException e) {
      status = 500; // a malformed assignment: the node fails the turn with retry
    }
    byte[] body = "{}".getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().add("Content-Type", "application/json");
    exchange.sendResponseHeaders(status, body.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(body);
    }
    exchange.close();
  }

  private static long millis(String instant) {
    return instant.isEmpty() || "null".equals(instant) ? 0 : Instant.parse(instant).toEpochMilli();
  }

  @Override
  public void close() {
    server.stop(0);
    workers.shutdownNow();
  }
}
