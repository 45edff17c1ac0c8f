package dev.rota.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.server.testing.Databases;
import dev.rota.server.testing.RawHttp;
import dev.rota.server.testing.RawHttp.Response;
import dev.rota.server.testing.TestDatabase;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.apache.pekko.actor.testkit.typed.javadsl.LogCapturingExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * What a web page in the operator's browser could send to a node in its default mode (no tokens,
 * loopback), over a real socket (decision 51): a cross-origin POST, a {@code text/plain} POST and a
 * DNS-rebound {@code Host} are refused before they reach anything; the same requests as the
 * dashboard, curl or the SDK send them are served.
 */
@ExtendWith(LogCapturingExtension.class)
class CrossSiteNodeTest {

  @Test
  void aDefaultNodeRefusesCrossSiteRequestsAndServesItsOwn() throws Exception {
    try (TestDatabase database = Databases.h2();
        RotaNode node =
            RotaNode.startWith(
                RotaConfig.load(
                    RotaNodeContract.TEST_NODE.withFallback(database.config()), Map.of()))) {
      int port = node.httpPort();
      String self = "http://127.0.0.1:" + port;
      assertEquals(201, RawHttp.send(port, "PUT", "/v1/agents/xs-1", "{}").status());

      Response crossOrigin =
          RawHttp.send(
              port, "POST", "/admin/pause", Map.of("Origin", "https://evil.example"), new byte[0]);
      assertError(crossOrigin, 403, "forbidden");

      Response textPlain =
          RawHttp.send(
              port,
              "POST",
              "/v1/agents/xs-1/notifications",
              Map.of("Content-Type", "text/plain;charset=UTF-8"),
              "{\"type\": \"m\"}".getBytes(StandardCharsets.UTF_8));
      assertError(textPlain, 415, "unsupported_media_type");

      Response rebound =
          RawHttp.sendRaw(
              port,
              ("GET /v1/agents/xs-1 HTTP/1.1\r\nHost: evil.example:"
                      + port
                      + "\r\nConnection: close\r\n\r\n")
                  .getBytes(StandardCharsets.US_ASCII));
      assertError(rebound, 403, "forbidden");

      Response stats = RawHttp.send(port, "GET", "/admin/stats", null);
      assertEquals(200, stats.status(), stats.toString());
      assertTrue(
          stats.text().contains("\"paused\":false"),
          "the cross-origin pause did nothing: " + stats.text());
      String view = RawHttp.send(port, "GET", "/v1/agents/xs-1", null).text();
      assertTrue(view.contains("\"unread\":0"), "the text/plain notification was refused: " + view);

      assertEquals(
          202,
          RawHttp.send(
                  port,
                  "POST",
                  "/v1/agents/xs-1/notifications",
                  Map.of("Content-Type", "application/json", "Origin", self),
                  "{\"type\": \"m\"}".getBytes(StandardCharsets.UTF_8))
              .status(),
          "same origin, as the dashboard sends it");
      Response localhost =
          RawHttp.sendRaw(
              port,
              ("GET /v1/agents/xs-1 HTTP/1.1\r\nHost: localhost:"
                      + port
                      + "\r\nConnection: close\r\n\r\n")
                  .getBytes(StandardCharsets.US_ASCII));
      assertEquals(200, localhost.status(), localhost.toString());
      assertEquals(200, RawHttp.send(port, "GET", "/", null).status(), "the dashboard is served");
    }
  }

  private static void assertError(Response response, int status, String code) {
    assertEquals(status, response.status(), response.toString());
    assertTrue(response.text().contains("\"error\":\"" + code + "\""), response.toString());
  }
}
