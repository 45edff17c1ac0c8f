package dev.rota.client;

import com.fasterxml.jackson.core.type.TypeReference;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * How {@link RotaClient} sends one request: retried by what a repeat may duplicate, with the
 * server's {@code Retry-After} or a growing back-off between tries; and the paths and JSON bodies
 * its calls share.
 */
final class Calls {
  private final HttpTransport http;
  private final Duration readTimeout;
  private final int retries;
  private final Duration initialBackoff;
  private final Duration maxBackoff;
  private final String tenant;
  private volatile boolean closed;

  Calls(
      HttpTransport http,
      Duration readTimeout,
      int retries,
      Duration initialBackoff,
      Duration maxBackoff) {
    this(http, readTimeout, retries, initialBackoff, maxBackoff, null);
  }

  private Calls(
      HttpTransport http,
      Duration readTimeout,
      int retries,
      Duration initialBackoff,
      Duration maxBackoff,
      String tenant) {
    this.http = http;
    this.readTimeout = readTimeout;
    this.retries = retries;
    this.initialBackoff = initialBackoff;
    this.maxBackoff = maxBackoff;
    this.tenant = tenant;
  }

  /**
   * These calls with every agent call ({@code v1/agents...}) in {@code tenant}, sent as {@code
   * ?tenant=}; null sends none (the node takes the token's tenant, or {@code default}).
   */
  Calls forTenant(String tenant) {
    return new Calls(http, readTimeout, retries, initialBackoff, maxBackoff, tenant);
  }

  String tenant() {
    return tenant;
  }

  /**
   * An agent or call path with the client's tenant as {@code ?tenant=} (a call is its tenant's);
   * any other path as it is.
   */
  String inTenant(String path) {
    if (tenant == null || !(path.startsWith("v1/agents") || path.startsWith("v1/calls/"))) {
      return path;
    }
    return path + (path.indexOf('?') < 0 ? '?' : '&') + "tenant=" + encode(tenant);
  }

  /** Later calls throw; a call waiting to retry gives up. */
  void close() {
    closed = true;
  }

  /** When a failed call may be repeated. */
  enum Retry {
    /** The request cannot duplicate anything: retry on 503 and every connection failure. */
    ANY,
    /** As ANY; a 404 after a lost answer means the first try deleted it. */
    ANY_DELETE,
    /** Retry only when nothing was accepted: 503, or no connection could be opened. */
    UNSENT
  }

  byte[] call(String method, String path, byte[] body, Retry retry) {
    return call(method, path, body, retry, readTimeout);
  }

  byte[] call(String method, String target, byte[] body, Retry retry, Duration timeout) {
    requireOpen();
    String path = inTenant(target);
    Duration backoff = initialBackoff;
    boolean answerLost = false;
    for (int attempt = 0; ; attempt++) {
      RotaException failure;
      try {
        HttpTransport.Response response = http.call(method, path, body, timeout);
        if (response.status() < 300) {
          return response.body();
        }
        if (retry == Retry.ANY_DELETE && answerLost && response.status() == 404) {
          return response.body();
        }
        failure = HttpTransport.error(response);
      } catch (RotaException.Connection e) {
        failure = e;
        answerLost |= e.requestSent();
      }
      if (attempt >= retries || closed || !retriable(failure, retry)) {
        throw failure;
      }
      Duration wait = failure.retryAfter().orElse(backoff);
      sleep(wait.compareTo(maxBackoff) > 0 ? maxBackoff : wait);
      backoff =
          backoff.multipliedBy(2).compareTo(maxBackoff) > 0 ? maxBackoff : backoff.multipliedBy(2);
    }
  }

  private static boolean retriable(RotaException failure, Retry retry) {
    if (failure instanceof RotaException.Unavailable) {
      return true;
    }
    if (failure instanceof RotaException.Connection connection) {
      return retry != Retry.UNSENT || !connection.requestSent();
    }
    return false;
  }

  private static void sleep(Duration wait) {
    try {
      Thread.sleep(wait.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new RotaException.Connection("interrupted while waiting to retry", true, e);
    }
  }

  void requireOpen() {
    if (closed) {
      throw new IllegalStateException("RotaClient is closed");
    }
  }

  static String eventsPath(EventQuery query) {
    List<String> params = new ArrayList<>();
    if (query.agentId() != null) {
      params.add("agentId=" + encode(query.agentId()));
    }
    if (!query.types().isEmpty()) {
      params.add("types=" + encode(String.join(",", query.types())));
    }
    return "v1/events" + (params.isEmpty() ? "" : "?" + String.join("&", params));
  }

  static String agentPath(String agentId) {
    return "v1/agents/" + encode(agentId);
  }

  static String leasePath(String leaseId) {
    return "v1/leases/" + encode(leaseId);
  }

  static String encode(String value) {
    return URLEncoder.encode(value, StandardCharsets.UTF_8).replace("+", "%20");
  }

  static byte[] body(Object value) {
    try {
      return Json.MAPPER.writeValueAsBytes(value);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static <T> T read(byte[] body, Class<T> type) {
    try {
      return Json.MAPPER.readValue(body, type);
    } catch (IOException e) {
      throw new RotaException(200, "bad_answer", "unreadable answer: " + e.getMessage(), null, e);
    }
  }

  static <T> T read(byte[] body, TypeReference<T> type) {
    try {
      return Json.MAPPER.readValue(body, type);
    } catch (IOException e) {
      throw new RotaException(200, "bad_answer", "unreadable answer: " + e.getMessage(), null, e);
    }
  }
}
