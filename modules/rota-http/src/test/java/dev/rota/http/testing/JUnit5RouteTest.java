package dev.rota.http.testing;

import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.http.javadsl.model.HttpRequest;
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

  @Override
  public TestRouteResult createTestRouteResultAsync(
      HttpRequest request, Future<RouteResult> result) {
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
