package dev.rota.client;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.HttpURLConnection;
import java.net.URI;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * Blocking HTTP/1.1 calls with the JDK's {@link HttpURLConnection} and its keep-alive cache: one
 * call on the caller's thread, no selector or executor of its own. Chosen over {@code
 * java.net.http} because a runner's calls are blocking anyway, because that client's selector
 * thread cannot be stopped on Java 17 (no {@code close()} before 21), and because on a machine
 * shared with the node it cost markedly more CPU per call (see the bench's README).
 */
final class HttpTransport {

  static {
    // Runner slots and producers each keep a connection; the JDK keeps 5 per host by default.
    if (System.getProperty("http.maxConnections") == null) {
      System.setProperty("http.maxConnections", "256");
    }
  }

  /** An answer: status, body bytes and the {@code Retry-After} header (null when absent). */
  record Response(int status, byte[] body, Duration retryAfter) {}

  private final URI base;
  private final String authorization;
  private final Duration connectTimeout;

  HttpTransport(URI base, String token, Duration connectTimeout) {
    this.base = base.toString().endsWith("/") ? base : URI.create(base + "/");
    this.authorization = token == null || token.isEmpty() ? null : "Bearer " + token;
    this.connectTimeout = connectTimeout;
  }

  URI base() {
    return base;
  }

  /**
   * One request. {@code json} may be null (no body).
   *
   * @throws RotaException.Connection when no answer arrived; {@code requestSent()} says whether the
   *     connection was open when it failed
   */
  Response call(String method, String path, byte[] json, Duration readTimeout) {
    HttpURLConnection c;
    try {
      c = open(path, readTimeout);
      c.setRequestMethod(method);
      if (json != null) {
        c.setDoOutput(true);
        c.setRequestProperty("Content-Type", "application/json");
        c.setFixedLengthStreamingMode(json.length);
      } else if (method.equals("POST") || method.equals("PUT")) {
        c.setDoOutput(true);
        c.setFixedLengthStreamingMode(0);
      }
      c.connect();
    } catch (IOException e) {
      throw new RotaException.Connection(
          "cannot connect to " + base + ": " + e.getMessage(), false, e);
    }
    try {
      if (c.getDoOutput()) {
        try (OutputStream out = c.getOutputStream()) {
          if (json != null) {
            out.write(json);
          }
        }
      }
      int status = c.getResponseCode();
      InputStream in = status >= 400 ? c.getErrorStream() : c.getInputStream();
      byte[] body;
      if (in == null) {
        body = new byte[0];
      } else {
        // Reading to the end hands the connection back to the keep-alive cache.
        try (in) {
          body = in.readAllBytes();
        }
      }
      return new Response(status, body, retryAfter(c.getHeaderField("Retry-After")));
    } catch (IOException e) {
      c.disconnect();
      throw new RotaException.Connection(
          method + " " + path + " got no answer: " + e.getMessage(), true, e);
    }
  }

  /** Opens a GET of an event stream on its own socket; the caller reads and closes it. */
  SseConnection openStream(
      String path, String lastEventId, Duration readTimeout, java.net.Socket socket)
      throws IOException {
    return SseConnection.open(
        base.resolve(path), authorization, lastEventId, connectTimeout, readTimeout, socket);
  }

  private HttpURLConnection open(String path, Duration readTimeout) throws IOException {
    URL url = base.resolve(path).toURL();
    HttpURLConnection c = (HttpURLConnection) url.openConnection();
    c.setConnectTimeout((int) connectTimeout.toMillis());
    c.setReadTimeout((int) readTimeout.toMillis());
    c.setUseCaches(false);
    c.setRequestProperty("Accept", "application/json");
    if (authorization != null) {
      c.setRequestProperty("Authorization", authorization);
    }
    return c;
  }

  /** Reads an error body into an exception; a body not in docs/api.md's shape still gives one. */
  static RotaException error(Response response) {
    String code = "http_" + response.status();
    String message = new String(response.body(), StandardCharsets.UTF_8).strip();
    String reason = null;
    String oldestRetainedId = null;
    try {
      JsonNode body = Json.MAPPER.readTree(response.body());
      if (body != null && body.hasNonNull("error")) {
        code = body.get("error").asText();
        message = body.path("message").asText(message);
        reason = body.path("reason").asText(null);
        oldestRetainedId = body.path("oldestRetainedId").asText(null);
      }
    } catch (IOException notJson) {
      // keep the raw text
    }
    if (message.isEmpty()) {
      message = "HTTP " + response.status();
    }
    if ("gone".equals(code)) {
      return new RotaException.Gone(
          response.status() + " " + code + ": " + message, oldestRetainedId);
    }
    return RotaException.of(response.status(), code, message, response.retryAfter(), reason);
  }

  private static Duration retryAfter(String header) {
    if (header == null) {
      return null;
    }
    try {
      return Duration.ofSeconds(Long.parseLong(header.trim()));
    } catch (NumberFormatException httpDate) {
      return null;
    }
  }
}
