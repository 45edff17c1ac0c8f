package dev.rota.http;

import static dev.rota.http.testing.RouteAssertions.assertError;
import static dev.rota.http.testing.RouteAssertions.body;
import static dev.rota.http.testing.RouteAssertions.jsonRequest;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigException;
import com.typesafe.config.ConfigFactory;
import dev.rota.http.testing.JUnit5RouteTest;
import dev.rota.http.testing.TestCluster;
import java.net.InetAddress;
import java.util.Set;
import org.apache.pekko.actor.testkit.typed.javadsl.LogCapturingExtension;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.http.javadsl.model.AttributeKeys;
import org.apache.pekko.http.javadsl.model.ContentTypes;
import org.apache.pekko.http.javadsl.model.HttpRequest;
import org.apache.pekko.http.javadsl.model.RemoteAddress;
import org.apache.pekko.http.javadsl.model.headers.Host;
import org.apache.pekko.http.javadsl.model.headers.RawHeader;
import org.apache.pekko.http.javadsl.testkit.TestRouteResult;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Cross-site requests (decision 51) against the agent routes of a real single-node cluster: what a
 * web page in the operator's browser could send is refused before any route runs, what the node's
 * own dashboard and clients outside a browser send is served.
 */
@ExtendWith(LogCapturingExtension.class)
class CrossSiteGuardTest extends JUnit5RouteTest {
  private static final Host NODE = Host.create("127.0.0.1", 8080);
  private static TestCluster cluster;

  @BeforeAll
  static void startCluster() {
    cluster = TestCluster.start("CrossSiteGuardTest");
  }

  @AfterAll
  static void stopCluster() {
    cluster.shutdown();
  }

  @Override
  protected ActorSystem<?> typedSystem() {
    return cluster.system();
  }

  private static HttpSettings settings(String overrides) {
    return HttpSettings.from(ConfigFactory.parseString(overrides).withFallback(cluster.config()));
  }

  private TestRouteResult run(HttpSettings settings, HttpRequest request) {
    return testRoute(new RotaRoutes(cluster.system(), settings, cluster.directory()).route())
        .run(request);
  }

  private TestRouteResult run(HttpRequest request) {
    return run(settings(""), request);
  }

  private static HttpRequest register(String agentId) {
    return jsonRequest("PUT", "/v1/agents/" + agentId, "{}").addHeader(NODE);
  }

  private static HttpRequest notification(String agentId) {
    return jsonRequest("POST", "/v1/agents/" + agentId + "/notifications", "{\"type\": \"x\"}")
        .addHeader(NODE);
  }

  @Test
  void textPlainOrFormBodyIsRefusedWith415() {
    run(register("xs-text")).assertStatusCode(201);

    for (var type :
        Set.of(
            ContentTypes.TEXT_PLAIN_UTF8,
            ContentTypes.create(
                org.apache.pekko.http.javadsl.model.MediaTypes
                    .APPLICATION_X_WWW_FORM_URLENCODED))) {
      assertError(
          run(notification("xs-text").withEntity(type, "{\"type\": \"x\"}")),
          415,
          "unsupported_media_type",
          "Content-Type: application/json");
    }
    assertEquals(0, inboxOf("xs-text"));
  }

  @Test
  void jsonFromOutsideABrowserAndBodylessPostsAreServed() {
    run(register("xs-json")).assertStatusCode(201);

    run(notification("xs-json")).assertStatusCode(202);
    run(HttpRequest.POST("/v1/agents/xs-json/pause").addHeader(NODE)).assertStatusCode(200);
    run(HttpRequest.GET("/v1/agents/xs-json")).assertStatusCode(200);
  }

  @Test
  void crossOriginPostIsRefusedAndSameOriginServed() {
    run(register("xs-origin")).assertStatusCode(201);

    assertError(
        run(notification("xs-origin").addHeader(RawHeader.create("Origin", "https://evil.test"))),
        403,
        "forbidden",
        "cross-origin");
    assertError(
        run(notification("xs-origin").addHeader(RawHeader.create("Origin", "null"))),
        403,
        "forbidden",
        "cross-origin");
    assertError(
        run(
            notification("xs-origin")
                .addHeader(RawHeader.create("Origin", "http://127.0.0.1:9999"))),
        403,
        "forbidden",
        "cross-origin");
    assertEquals(0, inboxOf("xs-origin"));

    run(notification("xs-origin").addHeader(RawHeader.create("Origin", "http://127.0.0.1:8080")))
        .assertStatusCode(202);
    run(notification("xs-origin")
            .removeHeader("Host")
            .addHeader(Host.create("[::1]", 8080))
            .addHeader(RawHeader.create("Origin", "http://[::1]:8080")))
        .assertStatusCode(202);
  }

  @Test
  void listedOriginIsServed() {
    HttpSettings settings =
        settings("rota.http.allowed-origins = \"https://ops.example.com, http://localhost:3000\"");
    run(settings, register("xs-listed")).assertStatusCode(201);

    run(
            settings,
            notification("xs-listed")
                .addHeader(RawHeader.create("Origin", "https://OPS.example.com:443")))
        .assertStatusCode(202);
    run(
            settings,
            notification("xs-listed")
                .addHeader(RawHeader.create("Origin", "http://localhost:3000")))
        .assertStatusCode(202);
    assertError(
        run(
            settings,
            notification("xs-listed")
                .addHeader(RawHeader.create("Origin", "http://localhost:3001"))),
        403,
        "forbidden",
        "allowed-origins");
  }

  @Test
  void rebindingHostIsRefusedInLoopbackMode() {
    assertError(
        run(register("xs-host").removeHeader("Host").addHeader(Host.create("evil.test", 8080))),
        403,
        "forbidden",
        "localhost");
    assertError(
        run(HttpRequest.GET("/v1/agents").addHeader(Host.create("evil.test"))),
        403,
        "forbidden",
        "localhost");

    for (Host loopback :
        new Host[] {
          Host.create("localhost", 8080), Host.create("127.0.0.2"), Host.create("[::1]", 8080)
        }) {
      run(HttpRequest.GET("/v1/agents").addHeader(loopback)).assertStatusCode(200);
    }
  }

  @Test
  void aConnectionFromAnotherMachineIsRefusedInLoopbackModeWhateverItsHost() throws Exception {
    HttpRequest fromElsewhere =
        HttpRequest.GET("/v1/agents")
            .addHeader(Host.create("localhost", 8080))
            .addAttribute(
                AttributeKeys.remoteAddress,
                RemoteAddress.create(InetAddress.getByName("192.0.2.10")));

    assertError(run(fromElsewhere), 403, "forbidden", "connections from this machine");
    // Allowed anonymous access (behind something that authenticates) serves it.
    run(settings("rota.http.allow-anonymous = on"), fromElsewhere).assertStatusCode(200);
  }

  @Test
  void aSameHostProxyRelayingAnotherMachineIsRefusedInLoopbackMode() {
    for (RawHeader forwarded :
        new RawHeader[] {
          RawHeader.create("X-Forwarded-For", "203.0.113.7"),
          RawHeader.create("X-Forwarded-For", "127.0.0.1, 203.0.113.7"),
          RawHeader.create("X-Real-IP", "203.0.113.7"),
          RawHeader.create("Forwarded", "for=\"[2001:db8::7]:4711\";proto=https"),
          RawHeader.create("Forwarded", "for=unknown"),
        }) {
      assertError(
          run(HttpRequest.GET("/v1/agents").addHeader(NODE).addHeader(forwarded)),
          403,
          "forbidden",
          "relayed");
    }
    run(HttpRequest.GET("/v1/agents")
            .addHeader(NODE)
            .addHeader(RawHeader.create("X-Forwarded-For", "127.0.0.1"))
            .addHeader(RawHeader.create("Forwarded", "for=\"[::1]:5000\"")))
        .assertStatusCode(200);
  }

  @Test
  void anyHostIsServedOnceTokensAreConfigured() {
    HttpSettings settings = settings("rota.http.tokens-list = \"t0ken:admin\"");

    run(
            settings,
            HttpRequest.GET("/v1/agents")
                .addHeader(Host.create("rota.internal.example", 8080))
                .addHeader(RawHeader.create("Authorization", "Bearer t0ken")))
        .assertStatusCode(200);
  }

  @Test
  void loopbackNamesAreRecognised() {
    for (String name :
        new String[] {
          "localhost", "LOCALHOST.", "a.localhost", "127.0.0.1", "127.255.0.9", "[::1]", "::1"
        }) {
      assertTrue(CrossSiteGuard.isLoopbackName(name), name);
    }
    for (String name :
        new String[] {
          "evil.test",
          "localhost.evil.test",
          "127.0.0.1.evil.test",
          "128.0.0.1",
          "0.0.0.0",
          "[::2]",
          "127.0.0.256"
        }) {
      assertFalse(CrossSiteGuard.isLoopbackName(name), name);
    }
  }

  @Test
  void malformedAllowedOriginFailsAtStart() {
    assertThrows(
        ConfigException.BadValue.class,
        () -> settings("rota.http.allowed-origins = [\"https://ops.example.com/path\"]"));
  }

  private int inboxOf(String agentId) {
    return body(run(HttpRequest.GET("/v1/agents/" + agentId)).assertStatusCode(200))
        .get("inbox")
        .get("unread")
        .asInt();
  }
}
