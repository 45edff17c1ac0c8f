package dev.rota.http;

import static dev.rota.http.testing.RouteAssertions.assertError;
import static dev.rota.http.testing.RouteAssertions.body;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.rota.http.testing.ApiCalls;
import dev.rota.http.testing.JUnit5RouteTest;
import dev.rota.http.testing.RotaTestCluster;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.apache.pekko.actor.testkit.typed.javadsl.LogCapturingExtension;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.http.javadsl.model.HttpRequest;
import org.apache.pekko.http.javadsl.testkit.TestRouteResult;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A completion's {@code defer} (docs/api.md, "Deferred answers") against real agents of a one-node
 * cluster: the call stays owed, shows in the agent view and the next assignment's {@code owes}, and
 * a later completion answers it; a {@code defer} naming a call not owed is a 400 that reports
 * nothing.
 */
@ExtendWith(LogCapturingExtension.class)
class LeaseDeferRoutesTest extends JUnit5RouteTest {
  private static RotaTestCluster cluster;

  private final ApiCalls api = new ApiCalls(this::run);
  private String caller;
  private String callee;

  @BeforeAll
  static void startCluster() {
    cluster = RotaTestCluster.inMemory("LeaseDeferRoutesTest");
  }

  @AfterAll
  static void stopCluster() {
    cluster.shutdown();
  }

  @BeforeEach
  void agentsPerTest(TestInfo info) {
    String name = info.getTestMethod().orElseThrow().getName();
    String id = name.substring(0, Math.min(30, name.length()));
    caller = id + "-a";
    callee = id + "-b";
    api.register(caller, caller);
    api.register(callee, callee);
  }

  @Override
  protected ActorSystem<?> typedSystem() {
    return cluster.system();
  }

  private TestRouteResult run(HttpRequest request) {
    return testRoute(cluster.routes(cluster.settings()).route()).run(request);
  }

  private TestRouteResult complete(JsonNode assignment, String runnerId, String fields) {
    return api.post(
        "/v1/leases/" + assignment.get("leaseId").asText() + "/complete",
        "{\"runnerId\": \"" + runnerId + "\"" + (fields.isBlank() ? "" : ", " + fields) + "}");
  }

  private int unread(String agentId) {
    return api.get("/v1/agents/" + agentId).get("inbox").get("unread").asInt();
  }

  private static void eventually(BooleanSupplier condition, String what) {
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    while (!condition.getAsBoolean()) {
      assertTrue(System.nanoTime() < end, "not within 5 s: " + what);
      try {
        Thread.sleep(20);
      } catch (InterruptedException e) {
        throw new AssertionError(e);
      }
    }
  }

  /** The caller's turn calls the callee; the callee's assignment carrying the call. */
  private JsonNode calleeServingACall() {
    api.notify(caller, "start", "{}");
    JsonNode turn = api.assignment("runner-" + caller, caller);
    complete(
            turn,
            "runner-" + caller,
            "\"send\": [{\"agentId\": \""
                + callee
                + "\", \"type\": \"question\", \"call\": {\"timeoutSeconds\": 600}}]")
        .assertStatusCode(200);
    eventually(() -> unread(callee) == 1, "the call delivered");
    return api.assignment("runner-" + callee, callee);
  }

  @Test
  void aDeferredCallIsOwedAndAnsweredByALaterCompletion() throws Exception {
    JsonNode served = calleeServingACall();
    assertFalse(served.has("owes"), "nothing owed before");
    String callId = served.get("notifications").get(0).get("call").get("callId").asText();
    complete(served, "runner-" + callee, "\"result\": {\"n\": 1}, \"defer\": [\"" + callId + "\"]")
        .assertStatusCode(200);
    JsonNode owes = api.get("/v1/agents/" + callee).get("owes");
    assertEquals(callId, owes.get(0).get("callId").asText());
    assertEquals(caller, owes.get(0).get("from").get("agentId").asText());
    Thread.sleep(300);
    assertEquals(0, unread(caller), "no reply while the call is deferred");

    api.notify(callee, "later", "{}");
    JsonNode again = api.assignment("runner-" + callee, callee);
    assertEquals(callId, again.get("owes").get(0).get("callId").asText());
    assertEquals(1, again.get("owes").get(0).get("depth").asInt());
    JsonNode done =
        body(
            complete(
                    again,
                    "runner-" + callee,
                    "\"result\": {\"n\": 2}, \"next\": {\"mode\": \"notification\","
                        + " \"capabilities\": [\""
                        + callee
                        + "\"]}")
                .assertStatusCode(200));
    assertEquals("none", done.get("next").get("status").asText());
    eventually(() -> unread(caller) == 1, "the reply delivered");
    JsonNode reply = api.assignment("runner-" + caller, caller).get("notifications").get(0);
    assertEquals(callId, reply.get("payload").get("callId").asText());
    assertEquals(2, reply.get("payload").get("result").get("n").asInt());
    assertEquals(0, api.get("/v1/agents/" + callee).get("owes").size());
  }

  @Test
  void aDeferNamingACallNotOwedIs400AndReportsNothing() {
    JsonNode served = calleeServingACall();
    String callId = served.get("notifications").get(0).get("call").get("callId").asText();
    assertError(
        complete(served, "runner-" + callee, "\"defer\": [\"" + callId + "\", \"nope\"]"),
        400,
        "invalid",
        "defer[1]");
    assertFalse(api.get("/v1/agents/" + callee).get("lease").isNull(), "the lease is still held");
    assertError(
        complete(served, "runner-" + callee, "\"defer\": [\"\"]"), 400, "invalid", "defer[0]");
  }
}
