package dev.rota.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Where {@code rota} takes its token from, so that it need not be an argument (which {@code ps}
 * shows): {@code ROTA_TOKEN}, {@code --token-file} and {@code ROTA_TOKEN_FILE}. A fake node records
 * the Authorization header it receives.
 */
class TokenSourcesTest {
  @TempDir Path tmp;
  private HttpServer server;
  private final List<String> authorizations = new CopyOnWriteArrayList<>();

  @BeforeEach
  void start() throws Exception {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext(
        "/",
        exchange -> {
          authorizations.add(
              String.valueOf(exchange.getRequestHeaders().getFirst("Authorization")));
          byte[] body = "{\"error\": \"forbidden\", \"message\": \"test\"}".getBytes();
          exchange.getResponseHeaders().set("Content-Type", "application/json");
          exchange.sendResponseHeaders(403, body.length);
          exchange.getResponseBody().write(body);
          exchange.close();
        });
    server.start();
  }

  @AfterEach
  void stop() {
    server.stop(0);
  }

  private int rota(Map<String, String> environment, String... args) {
    var cli = RotaCli.commandLine(environment);
    cli.setOut(new PrintWriter(new StringWriter(), true));
    StringWriter err = new StringWriter();
    cli.setErr(new PrintWriter(err, true));
    int exit = cli.execute(args);
    authorizations.add("exit " + exit + " " + err);
    return exit;
  }

  private String url() {
    return "http://127.0.0.1:" + server.getAddress().getPort();
  }

  @Test
  void theTokenComesFromAFileGivenAsAnOptionOrInTheEnvironment() throws Exception {
    Path file = tmp.resolve("token");
    Files.writeString(file, "from-the-file\n", StandardCharsets.UTF_8);

    assertEquals(
        RotaCli.NOT_ALLOWED,
        rota(Map.of("ROTA_URL", url()), "stats", "--token-file", file.toString()));
    assertEquals("Bearer from-the-file", authorizations.get(0), authorizations.toString());

    authorizations.clear();
    rota(
        Map.of("ROTA_URL", url(), "ROTA_TOKEN_FILE", file.toString(), "ROTA_TOKEN", "env"),
        "stats");
    assertEquals("Bearer from-the-file", authorizations.get(0), authorizations.toString());

    authorizations.clear();
    rota(Map.of("ROTA_URL", url(), "ROTA_TOKEN", "from-the-env"), "stats");
    assertEquals("Bearer from-the-env", authorizations.get(0), authorizations.toString());
  }

  @Test
  void aMissingTokenFileIsAUsageError() {
    int exit =
        rota(Map.of("ROTA_URL", url()), "stats", "--token-file", tmp.resolve("none").toString());
    assertEquals(RotaCli.USAGE, exit, authorizations.toString());
    assertTrue(authorizations.stream().noneMatch(a -> a.startsWith("Bearer")), "no request made");
  }
}
