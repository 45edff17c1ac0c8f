package dev.rota.http;

import static dev.rota.http.testing.RouteAssertions.assertError;
import static dev.rota.http.testing.RouteAssertions.body;
import static dev.rota.http.testing.RouteAssertions.fieldNames;
import static dev.rota.http.testing.RouteAssertions.jsonRequest;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.rota.cluster.agent.AgentEntity;
import dev.rota.cluster.agent.AgentEntity.Granted;
import dev.rota.core.model.ClaimSpec;
import dev.rota.core.model.RunnerMode;
import dev.rota.http.testing.JUnit5RouteTest;
import dev.rota.http.testing.TestCluster;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import org.apache.pekko.actor.testkit.typed.javadsl.LogCapturingExtension;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.http.javadsl.model.HttpRequest;
import org.apache.pekko.http.javadsl.testkit.TestRouteResult;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The agent resource against real agents: sharded {@code AgentEntity}s on a single-node cluster
 * with the in-memory journal, one cluster for the whole class. Each test uses its own agent ids.
 */
@ExtendWith(LogCapturingExtension.class)
class AgentRoutesTest extends JUnit5RouteTest {
  private static final List<String> VIEW_FIELDS =
      List.of(
          "agentId",
          "tenant",
          "name",
          "capabilities",
          "priority",
          "minActivationIntervalSeconds",
          "maxInboxDepth",
          "maxAttempts",
          "metadata",
          "status",
          "inbox",
          "lastActivatedAt",
          "activationCount",
          "deadLetters",
          "lease",
          "schedules",
          "scheduled",
          "newInput",
          "debounceMs",
          "debounceMaxMs",
          "debouncingUntil",
          "owes",
          "calls");

  private static TestCluster cluster;

  @BeforeAll
  static void startCluster() {
    long t = System.nanoTime();
    cluster = TestCluster.start("AgentRoutesTest");
    System.out.println("START " + (System.nanoTime() - t) / 1000000);
  }

  @AfterAll
  static void stopCluster() {
    long t = System.nanoTime();
    cluster.shutdown();
    System.out.println("STOP " + (System.nanoTime() - t) / 1000000);
  }

  @Override
  protected ActorSystem<?> typedSystem() {
    return cluster.system();
  }

  private TestRouteResult run(HttpRequest request) {
    RotaRoutes routes =
        new RotaRoutes(cluster.system(), HttpSettings.from(cluster.config()), cluster.directory());
    return testRoute(routes.route()).run(request);
  }

  private TestRouteResult put(String agentId, String json) {
    return run(jsonRequest("PUT", "/v1/agents/" + agentId, json));
  }

  private TestRouteResult notify(String agentId, String json) {
    return run(jsonRequest("POST", "/v1/agents/" + agentId + "/notifications", json));
  }

  private JsonNode get(String agentId) {
    return body(run(HttpRequest.GET("/v1/agents/" + agentId)).assertStatusCode(200));
  }

  @Test
  void registersSchedulesAndShowsTheirNextFire() {
    JsonNode view =
        body(
            put(
                    "sched-a",
                    """
                    {"schedules": [{"name": "daily_standup", "cron": "0 9 * * *",
                      "timezone": "Europe/Berlin", "payload": {"task": "standup"}},
                      {"name": "tick", "cron": "*/5 * * * *"}]}
                    """)
                .assertStatusCode(201));

    JsonNode schedules = view.get("schedules");
    assertEquals(2, schedules.size());
    assertEquals("daily_standup", schedules.get(0).get("name").asText());
    assertEquals("Europe/Berlin", schedules.get(0).get("timezone").asText());
    assertEquals("standup", schedules.get(0).get("payload").get("task").asText());
    assertEquals("UTC", schedules.get(1).get("timezone").asText());
    java.time.Instant tick = java.time.Instant.parse(schedules.get(1).get("nextFireAt").asText());
    assertEquals(0, tick.getEpochSecond() % 300);
    assertEquals(tick.toString(), view.get("scheduled").get("nextFireAt").asText());
    assertFalse(view.get("scheduled").get("due").asBoolean());

    JsonNode cleared = body(put("sched-a", "{\"schedules\": []}").assertStatusCode(200));
    assertEquals(0, cleared.get("schedules").size());
    assertTrue(cleared.get("scheduled").get("nextFireAt").isNull());
  }

  @Test
  void refusesInvalidSchedulesNamingTheField() {
    assertError(
        put("sched-bad", "{\"schedules\": [{\"name\": \"x\", \"cron\": \"0 9 * *\"}]}"),
        400,
        "invalid",
        "schedules[0].cron");
    assertError(
        put(
            "sched-bad",
            "{\"schedules\": [{\"name\": \"x\", \"cron\": \"0 9 * * *\","
                + " \"timezone\": \"Mars/Olympus\"}]}"),
        400,
        "invalid",
        "schedules[0].timezone");
    assertError(
        put(
            "sched-bad",
            "{\"schedules\": [{\"name\": \"x\", \"cron\": \"* * * * *\"},"
                + " {\"name\": \"x\", \"cron\": \"0 * * * *\"}]}"),
        400,
        "invalid",
        "schedules[1].name");
    assertError(
        put("sched-bad", "{\"schedules\": [{\"cron\": \"* * * * *\"}]}"),
        400,
        "invalid",
        "schedules[0].name");
    assertError(
        put(
            "sched-bad",
            "{\"schedules\": [{\"name\": \"x\", \"cron\": \"* * * * *\", \"every\": 5}]}"),
        400,
        "invalid",
        "every");
    StringBuilder many = new StringBuilder("{\"schedules\": [");
    for (int i = 0; i < 17; i++) {
      many.append(i == 0 ? "" : ",").append("{\"name\": \"s" + i + "\", \"cron\": \"* * * * *\"}");
    }
    assertError(put("sched-bad", many + "]}"), 400, "invalid", "schedules");
    assertError(run(HttpRequest.GET("/v1/agents/sched-bad")), 404, "not_found", "sched-bad");
  }

  @Test
  void registersNewAgentWith201AndTheFullViewWithDefaults() {
    JsonNode view = body(put("reg-new", "{}").assertStatusCode(201));

    assertEquals(VIEW_FIELDS, fieldNames(view));
    assertEquals("reg-new", view.get("agentId").asText());
    assertEquals("reg-new", view.get("name").asText());
    assertEquals(0, view.get("capabilities").size());
    assertEquals(0, view.get("priority").asInt());
    assertEquals(0, view.get("minActivationIntervalSeconds").asLong());
    assertEquals(100, view.get("maxInboxDepth").asInt());
    assertEquals(3, view.get("maxAttempts").asInt());
    assertTrue(view.get("metadata").isObject() && view.get("metadata").isEmpty());
    assertEquals("idle", view.get("status").asText());
    assertEquals(List.of("unread", "oldestUnreadAt"), fieldNames(view.get("inbox")));
    assertEquals(0, view.get("inbox").get("unread").asInt());
    assertTrue(view.get("inbox").get("oldestUnreadAt").isNull());
    assertTrue(view.get("lastActivatedAt").isNull());
    assertEquals(0, view.get("activationCount").asLong());
    assertEquals(0, view.get("deadLetters").asInt());
    assertTrue(view.get("lease").isNull());
  }

  @Test
  void updatesExistingAgentWith200AndKeepsFieldsNotGiven() {
    put(
            "reg-upd",
            """
            {"name": "claude-code-1", "capabilities": ["code", "web"], "priority": 2,
             "minActivationIntervalSeconds": 60, "maxInboxDepth": 10, "maxAttempts": 5,
             "metadata": {"model": "claude-sonnet-4", "interests": ["rust"]}}
            """)
        .assertStatusCode(201);

    JsonNode view = body(put("reg-upd", "{\"priority\": 7}").assertStatusCode(200));

    assertEquals("claude-code-1", view.get("name").asText());
    assertEquals("[\"code\",\"web\"]", view.get("capabilities").toString());
    assertEquals(7, view.get("priority").asInt());
    assertEquals(60, view.get("minActivationIntervalSeconds").asLong());
    assertEquals(10, view.get("maxInboxDepth").asInt());
    assertEquals(5, view.get("maxAttempts").asInt());
    assertEquals("claude-sonnet-4", view.get("metadata").get("model").asText());
    assertEquals(view, get("reg-upd"));
  }

  @Test
  void answers404ForUnknownAgent() {
    assertError(run(HttpRequest.GET("/v1/agents/nobody-here")), 404, "not_found", "nobody-here");
  }

  @Test
  void acceptsNotificationsWith202AndCountsUnread() {
    put("note-a", "{}").assertStatusCode(201);

    JsonNode first =
        body(notify("note-a", "{\"type\": \"mention\", \"payload\": {\"postId\": \"p9\"}}"));
    JsonNode second = body(notify("note-a", "{\"type\": \"reply\"}").assertStatusCode(202));

    assertEquals(List.of("notificationId", "unread", "duplicate"), fieldNames(first));
    assertFalse(first.get("notificationId").asText().isEmpty());
    assertEquals(1, first.get("unread").asInt());
    assertFalse(first.get("duplicate").asBoolean());
    assertEquals(2, second.get("unread").asInt());
    assertNotEquals(first.get("notificationId"), second.get("notificationId"));
    JsonNode inbox = get("note-a").get("inbox");
    assertEquals(2, inbox.get("unread").asInt());
    Instant.parse(inbox.get("oldestUnreadAt").asText());
  }

  @Test
  void answersDuplicateDedupeKeyWithTheFirstNotificationId() {
    put("note-dup", "{}").assertStatusCode(201);
    String json = "{\"type\": \"mention\", \"dedupeKey\": \"p9-mention\"}";

    JsonNode first = body(notify("note-dup", json).assertStatusCode(202));
    JsonNode again = body(notify("note-dup", json).assertStatusCode(202));

    assertEquals(first.get("notificationId"), again.get("notificationId"));
    assertTrue(again.get("duplicate").asBoolean());
    assertEquals(1, again.get("unread").asInt());
  }

  @Test
  void refusesNotificationWith429AndRetryAfterWhenInboxIsFull() {
    put("note-full", "{\"maxInboxDepth\": 1}").assertStatusCode(201);
    notify("note-full", "{\"type\": \"a\"}").assertStatusCode(202);

    TestRouteResult full = notify("note-full", "{\"type\": \"b\"}");

    assertError(full, 429, "inbox_full", "full");
    full.assertHeaderExists("Retry-After", "5");
    assertEquals(1, get("note-full").get("inbox").get("unread").asInt());
  }

  @Test
  void refusesNotificationForUnknownAgentWith404() {
    assertError(notify("note-nobody", "{\"type\": \"a\"}"), 404, "not_found", "note-nobody");
  }

  @Test
  void deregistersWith204AndThenAnswers404() {
    put("del-a", "{}").assertStatusCode(201);

    TestRouteResult deleted = run(HttpRequest.DELETE("/v1/agents/del-a"));

    deleted.assertStatusCode(204);
    assertEquals("", deleted.entityString());
    assertError(run(HttpRequest.GET("/v1/agents/del-a")), 404, "not_found", "del-a");
    assertError(run(HttpRequest.DELETE("/v1/agents/del-a")), 404, "not_found", "del-a");
  }

  @Test
  void refusesDeregisterWith409WhileLeasedAndShowsTheLease() {
    put("del-leased", "{}").assertStatusCode(201);
    Granted granted =
        assertInstanceOf(
            Granted.class,
            cluster.ask(
                "del-leased",
                r ->
                    new AgentEntity.Claim(
                        new ClaimSpec("runner-7", RunnerMode.HYBRID, Set.of(), Duration.ZERO, 300),
                        r)));

    assertError(run(HttpRequest.DELETE("/v1/agents/del-leased")), 409, "conflict", "lease");

    JsonNode view = get("del-leased");
    assertEquals("leased", view.get("status").asText());
    JsonNode lease = view.get("lease");
    // The holder and the expiry, never the lease id: a producer reads this view.
    assertEquals(List.of("runnerId", "kind", "grantedAt", "expiresAt"), fieldNames(lease));
    assertFalse(view.toString().contains(granted.lease().leaseId()), view.toString());
    assertEquals("runner-7", lease.get("runnerId").asText());
    assertEquals("exploration", lease.get("kind").asText());
    assertEquals(granted.lease().grantedAt(), Instant.parse(lease.get("grantedAt").asText()));
    assertEquals(granted.lease().expiresAt(), Instant.parse(lease.get("expiresAt").asText()));
  }

  @Test
  void pausesAndResumesWith200AndTheAgentView() {
    put("pause-a", "{}").assertStatusCode(201);

    JsonNode paused = body(run(HttpRequest.POST("/v1/agents/pause-a/pause")).assertStatusCode(200));
    JsonNode resumed =
        body(run(HttpRequest.POST("/v1/agents/pause-a/resume")).assertStatusCode(200));

    assertEquals(VIEW_FIELDS, fieldNames(paused));
    assertEquals("paused", paused.get("status").asText());
    assertEquals("idle", resumed.get("status").asText());
    assertError(run(HttpRequest.POST("/v1/agents/pause-nobody/pause")), 404, "not_found", "");
  }

  @Test
  void showsHistoryNewestFirstWithDetailsAndLimit() {
    put("hist-a", "{}").assertStatusCode(201);
    String id = body(notify("hist-a", "{\"type\": \"mention\"}")).get("notificationId").asText();
    run(HttpRequest.POST("/v1/agents/hist-a/pause")).assertStatusCode(200);

    JsonNode events =
        body(run(HttpRequest.GET("/v1/agents/hist-a/history")).assertStatusCode(200)).get("events");
    JsonNode limited =
        body(run(HttpRequest.GET("/v1/agents/hist-a/history?limit=2")).assertStatusCode(200))
            .get("events");

    assertEquals(3, events.size());
    assertEquals("agent.paused", events.get(0).get("type").asText());
    assertEquals("notification.accepted", events.get(1).get("type").asText());
    assertEquals("agent.registered", events.get(2).get("type").asText());
    assertEquals(id, events.get(1).get("notificationId").asText());
    assertEquals("mention", events.get(1).get("notificationType").asText());
    Instant newest = Instant.parse(events.get(0).get("at").asText());
    Instant oldest = Instant.parse(events.get(2).get("at").asText());
    assertFalse(newest.isBefore(oldest));
    assertEquals(2, limited.size());
    assertEquals("agent.paused", limited.get(0).get("type").asText());
    assertError(run(HttpRequest.GET("/v1/agents/hist-nobody/history")), 404, "not_found", "");
  }
}
