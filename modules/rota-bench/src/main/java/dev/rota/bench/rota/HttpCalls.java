package dev.rota.bench.rota;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * The harness's HTTP client for the node's API: {@link HttpURLConnection} with the JDK's keep-alive
 * cache, one blocking call per thread. The harness shares the machine with the node, and {@code
 * java.net.http}'s client (a selector thread and an executor hop per call) spent about a third of
 * the JVM's CPU when publishing 200/s.
 */
final class HttpCalls {

  static {
    // Publishers and external runners each keep a connection; the JDK keeps 5 by default.
    if (System.getProperty("http.maxConnections") == null) {
      System.setProperty("http.maxConnections", "256");
    }
  }

  /** A response: the status and the body as text. */
  record Response(int status, String body) {}

  private HttpCalls() {}

  /** POSTs a JSON body and reads the whole answer (which hands the connection back for reuse). */
  static Response post(URI uri, String json, Duration readTimeout) throws IOException {
    byte[] body = json.getBytes(StandardCharsets.UTF_8);
    HttpURLConnection c = (HttpURLConnection) uri.toURL().openConnection();
    c.setRequestMethod("POST");
    c.setDoOutput(true);
    c.setConnectTimeout(10_000);
    c.setReadTimeout((int) readTimeout.toMillis());
    c.setRequestProperty("Content-Type", "application/json");
    c.setFixedLengthStreamingMode(body.length);
    try (OutputStream out = c.getOutputStream()) {
      out.write(body);
    }
    int status = c.getResponseCode();
    InputStream in = status >= 400 ? c.getErrorStream() : c.getInputStream();
    if (in == null) {
      return new Response(status, "");
    }
    try (in) {
      return new Response(status, new String(in.readAllBytes(), StandardCharsets.UTF_8));
    }
  }
}
