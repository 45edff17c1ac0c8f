package dev.rota.server.testing;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * HTTP/1.1 over a plain socket, byte for byte as given: what a careless or hostile client sends
 * (bad request targets, unknown methods, huge headers, broken bodies) that {@code java.net.http}
 * would refuse to send. One request per connection ({@code Connection: close}).
 */
public final class RawHttp {
  private static final int READ_TIMEOUT_MS = 15_000;

  private RawHttp() {}

  /** A response: status, headers by lower-case name, and the body (de-chunked). */
  public record Response(int status, Map<String, List<String>> headers, byte[] body) {
    public String header(String name) {
      List<String> values = headers.get(name.toLowerCase(Locale.ROOT));
      return values == null || values.isEmpty() ? null : values.get(0);
    }

    public String text() {
      return new String(body, StandardCharsets.UTF_8);
    }

    @Override
    public String toString() {
      return status + " " + headers + " " + text();
    }
  }

  /** A request with a body, {@code Host}, {@code Content-Length} and {@code Connection: close}. */
  public static Response send(
      int port, String method, String target, Map<String, String> headers, byte[] body) {
    StringBuilder head = new StringBuilder();
    head.append(method).append(' ').append(target).append(" HTTP/1.1\r\n");
    head.append("Host: 127.0.0.1:").append(port).append("\r\n");
    head.append("Connection: close\r\n");
    headers.forEach((k, v) -> head.append(k).append(": ").append(v).append("\r\n"));
    if (body != null) {
      head.append("Content-Length: ").append(body.length).append("\r\n");
    }
    head.append("\r\n");
    ByteArrayOutputStream request = new ByteArrayOutputStream();
    request.writeBytes(head.toString().getBytes(StandardCharsets.UTF_8));
    if (body != null) {
      request.writeBytes(body);
    }
    return sendRaw(port, request.toByteArray());
  }

  public static Response send(int port, String method, String target, String jsonBody) {
    return send(
        port,
        method,
        target,
        jsonBody == null ? Map.of() : Map.of("Content-Type", "application/json"),
        jsonBody == null ? null : jsonBody.getBytes(StandardCharsets.UTF_8));
  }

  /** Exactly these bytes; the answer read until the server closes, or its head for a stream. */
  public static Response sendRaw(int port, byte[] request) {
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
      socket.setSoTimeout(READ_TIMEOUT_MS);
      OutputStream out = socket.getOutputStream();
      out.write(request);
      out.flush();
      return read(socket.getInputStream());
    } catch (IOException e) {
      throw new UncheckedIOException("raw request to port " + port + " failed", e);
    }
  }

  private static Response read(InputStream in) throws IOException {
    ByteArrayOutputStream head = new ByteArrayOutputStream();
    int last4 = 0;
    while (last4 != 0x0d0a0d0a) {
      int b = in.read();
      if (b < 0) {
        throw new IOException("connection closed before a complete response head: " + head);
      }
      head.write(b);
      last4 = (last4 << 8) | b;
    }
    String[] lines = head.toString(StandardCharsets.ISO_8859_1).split("\r\n");
    int status = Integer.parseInt(lines[0].split(" ")[1]);
    Map<String, List<String>> headers = new LinkedHashMap<>();
    for (int i = 1; i < lines.length; i++) {
      int colon = lines[i].indexOf(':');
      if (colon > 0) {
        headers
            .computeIfAbsent(
                lines[i].substring(0, colon).trim().toLowerCase(Locale.ROOT),
                k -> new ArrayList<>())
            .add(lines[i].substring(colon + 1).trim());
      }
    }
    Response headOnly = new Response(status, headers, new byte[0]);
    String type = headOnly.header("content-type");
    if (type != null && type.startsWith("text/event-stream")) {
      return headOnly;
    }
    String length = headOnly.header("content-length");
    byte[] body;
    if (length != null) {
      body = in.readNBytes(Integer.parseInt(length));
    } else if ("chunked".equalsIgnoreCase(headOnly.header("transfer-encoding"))) {
      body = dechunk(in);
    } else {
      body = readToEnd(in);
    }
    return new Response(status, headers, body);
  }

  private static byte[] readToEnd(InputStream in) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    byte[] buffer = new byte[8192];
    try {
      int n;
      while ((n = in.read(buffer)) >= 0) {
        out.write(buffer, 0, n);
      }
    } catch (SocketTimeoutException e) {
      // a server that keeps the connection open: what came so far is the body
    }
    return out.toByteArray();
  }

  private static byte[] dechunk(InputStream in) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    while (true) {
      String sizeLine = line(in);
      int semi = sizeLine.indexOf(';');
      int size = Integer.parseInt((semi >= 0 ? sizeLine.substring(0, semi) : sizeLine).trim(), 16);
      if (size == 0) {
        return out.toByteArray();
      }
      out.write(in.readNBytes(size));
      line(in);
    }
  }

  private static String line(InputStream in) throws IOException {
    ByteArrayOutputStream line = new ByteArrayOutputStream();
    int b;
    while ((b = in.read()) >= 0 && b != '\n') {
      if (b != '\r') {
        line.write(b);
      }
    }
    return line.toString(StandardCharsets.ISO_8859_1);
  }
}
