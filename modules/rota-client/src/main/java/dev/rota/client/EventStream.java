package dev.rota.client;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Iterator;
import java.util.NoSuchElementException;
import java.util.function.Consumer;

/**
 * The server-sent event stream of {@code GET /v1/events} as a blocking iterator. When the
 * connection drops (or stays silent past the server's 15 s heartbeat) it reconnects with a growing
 * back-off and sends {@code Last-Event-ID} with the id of the last event it returned, so the server
 * resumes right after it, as far as its retention allows. A server that sends no {@code id:} lines
 * resumes "from now": events in the gap are missed.
 *
 * <p>{@link #hasNext()} blocks until an event arrives and returns false only once the stream is
 * closed. {@link #close()} may be called from any thread and unblocks a waiting {@code hasNext}.
 * Errors that a reconnect cannot cure (401, 403, 404, 400) are thrown from {@code hasNext}.
 */
public final class EventStream implements Iterator<RotaEvent>, AutoCloseable {
  /** Three missed server heartbeats. */
  static final Duration READ_TIMEOUT = Duration.ofSeconds(45);

  private static final Duration FIRST_BACKOFF = Duration.ofMillis(250);
  private static final Duration MAX_BACKOFF = Duration.ofSeconds(5);

  private final HttpTransport http;
  private final String path;
  private final Consumer<EventStream> onClose;
  private volatile boolean closed;
  private volatile java.net.Socket socket;
  private SseConnection connection;
  private BufferedReader reader;
  private RotaEvent next;
  private String lastEventId;
  private Duration backoff = FIRST_BACKOFF;
  private int connects;

  EventStream(HttpTransport http, String path, String since, Consumer<EventStream> onClose) {
    this.http = http;
    this.path = path;
    this.lastEventId = since;
    this.onClose = onClose;
  }

  @Override
  public boolean hasNext() {
    while (next == null && !closed) {
      try {
        if (reader == null) {
          connect();
        }
        next = readEvent();
        if (next == null) {
          throw new IOException("the server ended the stream");
        }
      } catch (IOException e) {
        disconnect();
        if (!closed) {
          pause();
        }
      }
    }
    return next != null;
  }

  @Override
  public RotaEvent next() {
    if (!hasNext()) {
      throw new NoSuchElementException("the event stream is closed");
    }
    RotaEvent event = next;
    next = null;
    if (event.id() != null) {
      lastEventId = event.id();
    }
    return event;
  }

  /** The id of the last event returned, which a reconnect resumes after; null before any. */
  public String lastEventId() {
    return lastEventId;
  }

  /** How many times a connection was opened (1 until the first reconnect). */
  public int connects() {
    return connects;
  }

  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    java.net.Socket s = socket;
    if (s != null) {
      try {
        s.close();
      } catch (IOException ignored) {
        // already closed
      }
    }
    onClose.accept(this);
  }

  private void connect() throws IOException {
    java.net.Socket s = new java.net.Socket();
    socket = s;
    if (closed) {
      throw new IOException("closed");
    }
    connects++;
    SseConnection c = http.openStream(path, lastEventId, READ_TIMEOUT, s);
    connection = c;
    if (c.status() != 200) {
      HttpTransport.Response response =
          new HttpTransport.Response(c.status(), readAll(c), retryAfter(c));
      c.close();
      RotaException error = HttpTransport.error(response);
      if (!(error instanceof RotaException.Unavailable) && c.status() < 500) {
        closed = true;
        onClose.accept(this);
        throw error;
      }
      throw new IOException(error.getMessage());
    }
    reader = new BufferedReader(new InputStreamReader(c.body(), StandardCharsets.UTF_8));
    backoff = FIRST_BACKOFF;
  }

  /** Reads up to the next dispatched event; null at the end of the stream. */
  private RotaEvent readEvent() throws IOException {
    StringBuilder data = new StringBuilder();
    String id = null;
    boolean hasData = false;
    String line;
    while ((line = reader.readLine()) != null) {
      if (line.isEmpty()) {
        if (hasData) {
          return parse(id, data.toString());
        }
        id = null;
        continue;
      }
      if (line.startsWith(":")) {
        continue; // heartbeat comment
      }
      int colon = line.indexOf(':');
      String field = colon < 0 ? line : line.substring(0, colon);
      String value = colon < 0 ? "" : line.substring(colon + 1);
      if (value.startsWith(" ")) {
        value = value.substring(1);
      }
      switch (field) {
        case "data" -> {
          if (hasData) {
            data.append('\n');
          }
          data.append(value);
          hasData = true;
        }
        case "id" -> id = value.isEmpty() ? null : value;
        default -> {
          // "event" repeats the object's type; "retry" is left to our own back-off
        }
      }
    }
    return null;
  }

  private RotaEvent parse(String id, String data) throws IOException {
    JsonNode json = Json.MAPPER.readTree(data);
    String at = json.path("at").asText(null);
    return new RotaEvent(
        id,
        json.path("type").asText(null),
        at == null ? null : Instant.parse(at),
        json.path("agentId").asText(null),
        json);
  }

  private void disconnect() {
    SseConnection c = connection;
    if (c != null) {
      c.close();
    }
    connection = null;
    reader = null;
  }

  private void pause() {
    try {
      Thread.sleep(backoff.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      close();
    }
    backoff =
        backoff.multipliedBy(2).compareTo(MAX_BACKOFF) > 0 ? MAX_BACKOFF : backoff.multipliedBy(2);
  }

  private static byte[] readAll(SseConnection c) {
    try {
      return c.body().readAllBytes();
    } catch (IOException e) {
      return new byte[0];
    }
  }

  private static Duration retryAfter(SseConnection c) {
    String header = c.header("Retry-After");
    try {
      return header == null ? null : Duration.ofSeconds(Long.parseLong(header.trim()));
    } catch (NumberFormatException e) {
      return null;
    }
  }
}
