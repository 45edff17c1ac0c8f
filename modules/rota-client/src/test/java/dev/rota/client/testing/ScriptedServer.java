package dev.rota.client.testing;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;

/**
 * A loopback HTTP server that answers each request as its script says and records what it was sent,
 * for what a real node cannot be made to do on cue (answer a call's poll "pending", see a report's
 * exact body before it is applied).
 */
public final class ScriptedServer implements AutoCloseable {
  /** One request as it arrived. */
  public record Request(String method, String uri, String body) {}

  /** One answer. */
  public record Answer(int status, String body) {}

  private final HttpServer server;
  private final List<Request> requests = new CopyOnWriteArrayList<>();

  public ScriptedServer(Function<Request, Answer> script) {
    try {
      server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    server.createContext(
        "/",
        exchange -> {
          Request request =
              new Request(
                  exchange.getRequestMethod(),
                  exchange.getRequestURI().toString(),
                  new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
          requests.add(request);
          Answer answer = script.apply(request);
          byte[] body = answer.body().getBytes(StandardCharsets.UTF_8);
          exchange.getResponseHeaders().add("Content-Type", "application/json");
          exchange.sendResponseHeaders(answer.status(), body.length);
          try (OutputStream out = exchange.getResponseBody()) {
            out.write(body);
          }
        });
    server.start();
  }

  public URI uri() {
    return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/");
  }

  public List<Request> requests() {
    return List.copyOf(requests);
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
