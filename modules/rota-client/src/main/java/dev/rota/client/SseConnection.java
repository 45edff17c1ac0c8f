package dev.rota.client;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.Closeable;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.SSLSocketFactory;

/**
 * One HTTP/1.1 GET of an event stream on a socket of its own. {@code HttpURLConnection}'s {@code
 * disconnect()} waits for a blocked chunked read to return (up to the server's next heartbeat), so
 * a stream could not be closed promptly from another thread; closing this socket ends a blocked
 * read at once.
 */
final class SseConnection implements Closeable {
  private final Socket socket;
  private final int status;
  private final Map<String, String> headers;
  private final InputStream body;

  private SseConnection(Socket socket, int status, Map<String, String> headers, InputStream body) {
    this.socket = socket;
    this.status = status;
    this.headers = headers;
    this.body = body;
  }

  static SseConnection open(
      URI uri,
      String authorization,
      String lastEventId,
      Duration connectTimeout,
      Duration readTimeout,
      Socket socket)
      throws IOException {
    boolean tls = "https".equalsIgnoreCase(uri.getScheme());
    int port = uri.getPort() > 0 ? uri.getPort() : tls ? 443 : 80;
    socket.connect(new InetSocketAddress(uri.getHost(), port), (int) connectTimeout.toMillis());
    Socket s = socket;
    if (tls) {
      SSLSocket ssl =
          (SSLSocket)
              ((SSLSocketFactory) SSLSocketFactory.getDefault())
                  .createSocket(socket, uri.getHost(), port, true);
      // Verify that the certificate names this host, as HttpClient does: a certificate from a
      // trusted CA for any other name must not receive the bearer token.
      SSLParameters parameters = ssl.getSSLParameters();
      parameters.setEndpointIdentificationAlgorithm("HTTPS");
      ssl.setSSLParameters(parameters);
      s = ssl;
    }
    s.setSoTimeout((int) readTimeout.toMillis());
    StringBuilder request = new StringBuilder();
    String target = uri.getRawPath() + (uri.getRawQuery() == null ? "" : "?" + uri.getRawQuery());
    request.append("GET ").append(target).append(" HTTP/1.1\r\n");
    request.append("Host: ").append(uri.getHost()).append(':').append(port).append("\r\n");
    request.append("Accept: text/event-stream\r\n");
    request.append("Cache-Control: no-cache\r\n");
    if (authorization != null) {
      request.append("Authorization: ").append(authorization).append("\r\n");
    }
    if (lastEventId != null) {
      request.append("Last-Event-ID: ").append(lastEventId).append("\r\n");
    }
    request.append("\r\n");
    OutputStream out = s.getOutputStream();
    out.write(request.toString().getBytes(StandardCharsets.UTF_8));
    out.flush();

    InputStream in = new BufferedInputStream(s.getInputStream());
    String statusLine = readLine(in);
    String[] parts = statusLine.split(" ", 3);
    if (parts.length < 2 || !parts[0].startsWith("HTTP/")) {
      throw new IOException("not an HTTP answer: " + statusLine);
    }
    int status = Integer.parseInt(parts[1]);
    Map<String, String> headers = new HashMap<>();
    for (String line = readLine(in); !line.isEmpty(); line = readLine(in)) {
      int colon = line.indexOf(':');
      if (colon > 0) {
        headers.put(
            line.substring(0, colon).trim().toLowerCase(Locale.ROOT),
            line.substring(colon + 1).trim());
      }
    }
    InputStream body;
    if ("chunked".equalsIgnoreCase(headers.get("transfer-encoding"))) {
      body = new Chunked(in);
    } else if (headers.containsKey("content-length")) {
      body = new Bounded(in, Long.parseLong(headers.get("content-length")));
    } else {
      body = in;
    }
    return new SseConnection(s, status, headers, body);
  }

  int status() {
    return status;
  }

  String header(String name) {
    return headers.get(name.toLowerCase(Locale.ROOT));
  }

  InputStream body() {
    return body;
  }

  /** Closes the socket; a read blocked on it ends with an exception. Any thread may call it. */
  @Override
  public void close() {
    try {
      socket.close();
    } catch (IOException ignored) {
      // already closed
    }
  }

  private static String readLine(InputStream in) throws IOException {
    ByteArrayOutputStream line = new ByteArrayOutputStream();
    int b;
    while ((b = in.read()) != '\n') {
      if (b < 0) {
        throw new EOFException("connection closed in the answer's head");
      }
      if (b != '\r') {
        line.write(b);
      }
    }
    return line.toString(StandardCharsets.ISO_8859_1);
  }

  /** A chunked body (RFC 9112 §7.1), trailers skipped. */
  private static final class Chunked extends InputStream {
    private final InputStream in;
    private long left;
    private boolean done;

    Chunked(InputStream in) {
      this.in = in;
    }

    @Override
    public int read() throws IOException {
      byte[] one = new byte[1];
      return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
    }

    @Override
    public int read(byte[] buffer, int offset, int length) throws IOException {
      if (done) {
        return -1;
      }
      if (left == 0) {
        String size = readLine(in);
        int semicolon = size.indexOf(';');
        left = Long.parseLong((semicolon < 0 ? size : size.substring(0, semicolon)).trim(), 16);
        if (left == 0) {
          done = true;
          return -1;
        }
      }
      int n = in.read(buffer, offset, (int) Math.min(length, left));
      if (n < 0) {
        throw new EOFException("connection closed inside a chunk");
      }
      left -= n;
      if (left == 0) {
        readLine(in); // the CRLF after the chunk
      }
      return n;
    }
  }

  /** A body of known length. */
  private static final class Bounded extends InputStream {
    private final InputStream in;
    private long left;

    Bounded(InputStream in, long length) {
      this.in = in;
      this.left = length;
    }

    @Override
    public int read() throws IOException {
      if (left <= 0) {
        return -1;
      }
      int b = in.read();
      if (b >= 0) {
        left--;
      }
      return b;
    }

    @Override
    public int read(byte[] buffer, int offset, int length) throws IOException {
      if (left <= 0) {
        return -1;
      }
      int n = in.read(buffer, offset, (int) Math.min(length, left));
      if (n > 0) {
        left -= n;
      }
      return n;
    }
  }
}
