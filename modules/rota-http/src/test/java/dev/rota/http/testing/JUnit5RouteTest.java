package dev.rota.http.testing;

import java.net.InetAddress;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.http.javadsl.model.AttributeKeys;
import org.apache.pekko.http.javadsl.model.HttpRequest;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.model.MediaType;
import org.apache.pekko.http.javadsl.model.MediaTypes;
import org.apache.pekko.http.javadsl.model.RemoteAddress;
import org.apache.pekko.http.javadsl.server.Route;
import org.apache.pekko.http.javadsl.server.RouteResult;
import org.apache.pekko.http.javadsl.testkit.RouteTest;
import org.apache.pekko.http.javadsl.testkit.TestRouteResult;
import org.apache.pekko.stream.Materializer;
import org.junit.jupiter.api.Assertions;
import scala.concurrent.Future;
import scala.concurrent.duration.FiniteDuration;

/**
 * Pekko HTTP's Java route test kit for JUnit 5: the kit's {@code JUnitRouteTest} is tied to JUnit 4
 * rules and its own actor system, so this base runs routes on the test class's (typed) system and
 * reports through JUnit 5 assertions.
 */
public abstract class JUnit5RouteTest extends RouteTest {

  /** The system the routes under test run on; typically one per test class. */
  protected abstract org.apache.pekko.actor.typed.ActorSystem<?> typedSystem();

  @Override
  public ActorSystem system() {
    return Adapter.toClassic(typedSystem());
  }

  @Override
  public Materializer materializer() {
    return Materializer.matFromSystem(typedSystem());
  }

  /** Room for an entity's first recovery and a cluster that is still settling. */
  @Override
  public FiniteDuration awaitDuration() {
    return FiniteDuration.apply(10, TimeUnit.SECONDS);
  }

  /**
   * A request of the kit arrives, as a real one from {@code curl localhost} would, from the
   * loopback address (the server's {@code remote-address-attribute}), unless the test gave it
   * another.
   */
  @Override
  public TestRouteResult runRoute(Route route, HttpRequest request) {
    return super.runRoute(route, fromLoopback(request));
  }

  @Override
  public TestRouteResult runRouteUnSealed(Route route, HttpRequest request) {
    return super.runRouteUnSealed(route, fromLoopback(request));
  }

  private static HttpRequest fromLoopback(HttpRequest request) {
    if (request.getAttribute(AttributeKeys.remoteAddress).isPresent()) {
      return request;
    }
    return request.addAttribute(
        AttributeKeys.remoteAddress, RemoteAddress.create(InetAddress.getLoopbackAddress()));
  }

  /**
   * Every answer is also checked against the served OpenAPI document ({@link OpenApiContract}): a
   * status, header or body it does not describe fails the test that received it.
   */
  @Override
  public TestRouteResult createTestRouteResultAsync(
      HttpRequest request, Future<RouteResult> result) {
    TestRouteResult answer = routeResult(result);
    assertConformsToOpenApi(request, answer);
    return answer;
  }

  private static void assertConformsToOpenApi(HttpRequest request, TestRouteResult answer) {
    HttpResponse response;
    try {
      response = answer.response();
    } catch (AssertionError | RuntimeException notAnAnswer) {
      return; // a rejection or no answer in time: the test's own assertions report it
    }
    MediaType mediaType = response.entity().getContentType().mediaType();
    boolean stream = mediaType.equals(MediaTypes.TEXT_EVENT_STREAM);
    Map<String, String> headers = new HashMap<>();
    response.getHeaders().forEach(h -> headers.put(h.lowercaseName(), h.value()));
    List<String> problems =
        OpenApiContract.get()
            .problems(
                new OpenApiContract.Answer(
                    request.method().name(),
                    request.getUri().path(),
                    response.status().intValue(),
                    mediaType.mainType() + "/" + mediaType.subType(),
                    headers,
                    stream ? null : answer.entityString()));
    if (!problems.isEmpty()) {
      Assertions.fail(
          "the answer does not conform to openapi.yaml:\n" + String.join("\n", problems));
    }
  }

  private TestRouteResult routeResult(Future<RouteResult> result) {
    return new TestRouteResult(result, awaitDuration(), system().dispatcher(), materializer()) {
      @Override
      public void fail(String message) {
        Assertions.fail(message);
      }

      @Override
      public void assertEquals(Object expected, Object actual, String message) {
        Assertions.assertEquals(expected, actual, message);
      }

      @Override
      public void assertEquals(int expected, int actual, String message) {
        Assertions.assertEquals(expected, actual, message);
      }

      @Override
      public void assertTrue(boolean predicate, String message) {
        Assertions.assertTrue(predicate, message);
      }
    };
  }
}
