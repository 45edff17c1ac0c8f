package dev.rota.faults.soak;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.rota.faults.history.Event.CompleteAttempt;
import dev.rota.faults.history.Event.Outcome;
import dev.rota.faults.history.History;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.Iterator;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;

/**
 * The node's word on the in-cluster runners' leases, from its events stream ({@code GET
 * /v1/events}): an {@code activation.completed} of a lease {@link WebhookTurns} saw granted is
 * recorded as an accepted {@link CompleteAttempt} at the event's time, so the history checker holds
 * those turns to the same rules as the external runners'. {@code activation.failed} and {@code
 * lease.expired} end a lease too (its notifications are granted again). The stream is resumed with
 * {@code Last-Event-ID} after any break, so no event is missed while the journal retains it.
 */
final class CompletionFeed implements AutoCloseable {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String TYPES = "activation.completed,activation.failed,lease.expired";

  private final History history;
  private final WebhookTurns turns;
  private final URI api;
  private final int node;
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
  private final Set<String> ended = ConcurrentHashMap.newKeySet();
  private final AtomicReference<String> lastId = new AtomicReference<>();
  private final AtomicReference<String> failure = new AtomicReference<>();
  private final Thread thread;
  private volatile boolean running = true;

  CompletionFeed(History history, WebhookTurns turns, URI api, int node) {
    this.history = history;
    this.turns = turns;
    this.api = api;
    this.node = node;
    thread = new Thread(this::follow, "soak-completion-feed");
    thread.setDaemon(true);
    thread.start();
  }

  /**
   * Waits until every lease the in-cluster runners were granted has ended in the stream, at most
   * {@code timeout}; the leases still open (empty: all ended).
   */
  Set<String> awaitEnded(Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      Set<String> open = new java.util.HashSet<>(turns.leases());
      open.removeAll(ended);
      if (open.isEmpty() || System.nanoTime() > deadline) {
        return open;
      }
      sleep(250);
    }
  }

  /** Why the stream stopped for good (410 gone: it fell behind the retention), or null. */
  String failure() {
    return failure.get();
  }

  private void follow() {
    while (running) {
      try {
        HttpRequest.Builder request =
            HttpRequest.newBuilder(api.resolve("/v1/events?types=" + TYPES)).GET();
        String since = lastId.get();
        if (since != null) {
          request.header("Last-Event-ID", since);
        }
        HttpResponse<Stream<String>> response =
            http.send(request.build(), HttpResponse.BodyHandlers.ofLines());
        if (response.statusCode() == 410) {
          failure.set("the events stream answered 410 gone after " + since);
          return;
        }
        if (response.statusCode() != 200) {
          response.body().close();
          sleep(500);
          continue;
        }
        try (Stream<String> lines = response.body()) {
          read(lines.iterator());
        }
      } catch (IOException | RuntimeException e) {
        sleep(500); // the node restarted or the connection broke: resume after the last event
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }

  private void read(Iterator<String> lines) throws IOException {
    String id = null;
    StringBuilder data = new StringBuilder();
    while (running && lines.hasNext()) {
      String line = lines.next();
      if (line.isEmpty()) {
        if (data.length() > 0) {
          onEvent(JSON.readTree(data.toString()));
        }
        if (id != null) {
          lastId.set(id);
        }
        id = null;
        data.setLength(0);
      } else if (line.startsWith("id:")) {
        id = line.substring(3).strip();
      } else if (line.startsWith("data:")) {
        data.append(line.substring(5).strip());
      }
    }
  }

  private void onEvent(JsonNode event) {
    String leaseId = event.path("leaseId").asText("");
    if (leaseId.isEmpty() || !turns.granted(leaseId)) {
      return;
    }
    if ("activation.completed".equals(event.path("type").asText())) {
      long at = Instant.parse(event.path("at").asText()).toEpochMilli();
      history.add(
          new CompleteAttempt(leaseId, event.path("agentId").asText(), node, at, at, Outcome.OK));
    }
    ended.add(leaseId);
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public void close() {
    running = false;
    thread.interrupt();
  }
}
