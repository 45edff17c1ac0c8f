package dev.rota.server;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.POJONode;
import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.rota.cluster.agent.AgentEntity;
import dev.rota.core.model.AgentConfigPatch;
import dev.rota.core.model.Partitions;
import dev.rota.server.testing.RawHttp;
import dev.rota.server.testing.RawHttp.Response;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.cluster.sharding.typed.javadsl.ClusterSharding;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The hostile inputs that once hurt a node, replayed against a whole node (issue: hostile input):
 * each is refused at once with a 4xx and the API's error body, and nothing it carries wedges an
 * agent, crashes a coordinator or freezes a partition's read model. The failures the edge now
 * refuses are also injected behind it (straight to the entity through sharding) to show that what
 * is behind contains them. The last test checks every agent of every partition is listed, counted,
 * claimable and rebuilt after a restart. Run per database by {@link HostileInputTest}.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
abstract class HostileInputContract extends NodeOnDatabase {
  static final int PARTITIONS = 16;

  /** Small caps, so that tests reach them with a few requests. */
  static final Config LIMITS =
      ConfigFactory.parseMap(
          Map.of(
              "rota.http.max-long-polls", 2,
              "rota.agent.max-inbox-bytes", 2000,
              "rota.agent.max-dead-letters", 2));

  private static final ObjectMapper JSON = new ObjectMapper();

  /**
   * Every agent requires a capability, and every claim offers only its test's: an agent that
   * requires nothing would be given to any runner, and tests would take each other's agents.
   */
  private static final String IDLE = "{\"capabilities\": [\"idle\"]}";

  /** A value Jackson cannot write: its getter throws. */
  public static final class Unwritable {
    public String getBoom() {
      throw new IllegalStateException("cannot be written");
    }
  }

  private final Set<String> registered = new HashSet<>();

  // ---- strings the journal, CBOR or PostgreSQL cannot hold ----

  @Test
  @Order(1)
  void refusesALoneSurrogateAnywhereInANotificationAndTheAgentKeepsServing() throws Exception {
    String agent = register("surrogate-1", IDLE);

    assertInvalid(
        notify(agent, "{\"type\": \"m\", \"payload\": {\"text\": \"a\\ud800b\"}}"), "payload.text");
    assertInvalid(
        notify(agent, "{\"type\": \"m\", \"payload\": {\"deep\": [{\"k\\udc00\": 1}]}}"),
        "payload.deep[0]");
    assertInvalid(notify(agent, "{\"type\": \"m\\ud800\"}"), "type");
    assertInvalid(notify(agent, "{\"type\": \"m\", \"dedupeKey\": \"d\\udbff\"}"), "dedupeKey");

    assertEquals(202, notify(agent, "{\"type\": \"m\", \"payload\": {\"ok\": true}}").status());
    assertEquals(1, view(agent).at("/inbox/unread").asInt());
  }

  @Test
  @Order(2)
  void refusesControlCharactersInNamesButKeepsLineBreaksInPayloadText() throws Exception {
    assertInvalid(put("nul-name", "{\"name\": \"a\\u0000b\"}"), "name");
    assertInvalid(put("nul-name", "{\"name\": \"a\\u0007b\"}"), "name");
    assertInvalid(put("nul-name", "{\"capabilities\": [\"c\\u0000\"]}"), "capabilities[0]");
    assertInvalid(put("nul-name", "{\"metadata\": {\"x\": \"\\u0000\"}}"), "metadata.x");
    assertInvalid(
        put("nul-name", "{\"schedules\": [{\"name\": \"a\\u0007\", \"cron\": \"* * * * *\"}]}"),
        "schedules[0].name");
    assertInvalid(
        put(
            "nul-name",
            "{\"schedules\": [{\"name\": \"a\", \"cron\": \"* * * * *\","
                + " \"payload\": {\"x\": \"\\u0000\"}}]}"),
        "schedules[0].payload.x");
    assertEquals(404, get("/v1/agents/nul-name").status(), "nothing was registered");

    String agent =
        register(
            "text-ok",
            "{\"capabilities\": [\"idle\"], \"metadata\": {\"note\": \"line\\none\\ttab\"}}");
    assertEquals(
        202, notify(agent, "{\"type\": \"m\", \"payload\": {\"t\": \"a\\r\\nb\"}}").status());
    assertInvalid(
        notify(agent, "{\"type\": \"m\", \"payload\": {\"t\": \"\\u0000\"}}"), "payload.t");
  }

  @Test
  @Order(3)
  void refusesABadRunnerIdWithoutLeavingAnAgentIdleOrARunnerBehind() throws Exception {
    String agent = register("waiting-for-a-runner", "{\"capabilities\": [\"t3\"]}");
    assertEquals(202, notify(agent, "{\"type\": \"m\"}").status());

    assertInvalid(
        post("/v1/claims", "{\"runnerId\": \"r\\ud800\", \"mode\": \"notification\"}"), "runnerId");
    assertInvalid(
        post("/v1/claims", "{\"runnerId\": \"r\\u0000\", \"mode\": \"notification\"}"), "runnerId");

    JsonNode runners = json(get("/admin/runners"));
    for (JsonNode runner : runners.get("runners")) {
      assertFalse(runner.get("runnerId").asText().startsWith("r\\"), runners.toString());
    }
    assertClaimsAll(Set.of(agent), "notification", "t3");
  }

  // ---- numbers that once overflowed a timer ----

  @Test
  @Order(4)
  void refusesAMinimumIntervalPastThirtyDays() throws Exception {
    assertInvalid(
        put("a-year", "{\"minActivationIntervalSeconds\": 31536000}"),
        "minActivationIntervalSeconds");
    assertInvalid(put("a-year", "{\"priority\": 1001}"), "priority");
    assertInvalid(
        put("a-year", "{\"capabilities\": [\"" + "c".repeat(65) + "\"]}"), "capabilities[0]");
    assertInvalid(put("a-year", "{\"name\": \"" + "n".repeat(257) + "\"}"), "name");
    assertEquals(
        201,
        put("a-year", "{\"capabilities\": [\"idle\"], \"minActivationIntervalSeconds\": 2592000}")
            .status());
    registered.add("a-year");
  }

  @Test
  @Order(5)
  void aCoordinatorSurvivesAnAgentWhoseIntervalIsTooLongToTime() throws Exception {
    // Straight to the entity, past the edge's range check: a year between activations.
    String far = idInPartitionOf("far-", "neighbour-0");
    AgentEntity.Reply reply =
        ask(
            far,
            replyTo ->
                new AgentEntity.Register(
                    new AgentConfigPatch(null, List.of("far"), null, 31_536_000L, null, null, null),
                    replyTo));
    assertTrue(reply instanceof AgentEntity.AgentDetails, reply.toString());
    registered.add(far);
    // Activate it once, so that its next turn is a year away.
    JsonNode claim =
        claim(
            "{\"runnerId\": \"far-runner\", \"mode\": \"exploration\", "
                + "\"capabilities\": [\"far\"], \"waitSeconds\": 10}");
    assertEquals(far, claim.at("/assignment/agentId").asText(), claim.toString());
    assertEquals(
        200,
        post(
                "/v1/leases/" + claim.at("/assignment/leaseId").asText() + "/complete",
                "{\"runnerId\": \"far-runner\"}")
            .status());
    // A runner that only this agent fits waits: its coordinator parks it and times the agent's
    // next eligibility a year ahead (once: "Task scheduled too far in future", and a crash).
    assertEquals(
        "none",
        claim(
                "{\"runnerId\": \"far-runner\", \"mode\": \"exploration\", "
                    + "\"capabilities\": [\"far\"], \"waitSeconds\": 2}")
            .get("status")
            .asText());
    // The same partition still assigns.
    String neighbour =
        register(idInPartitionOf("neighbour-", far), "{\"capabilities\": [\"far-n\"]}");
    assertEquals(202, notify(neighbour, "{\"type\": \"m\"}").status());
    assertClaimsAll(Set.of(neighbour), "notification", "far-n");
  }

  // ---- failures behind the edge ----

  @Test
  @Order(6)
  void anEventTheJournalRejectsLeavesTheAgentServing() throws Exception {
    String agent = register("rejected-write", IDLE);
    ObjectNode payload = JsonNodeFactory.instance.objectNode();
    // Jackson cannot write this value: the journal rejects the event.
    payload.set("thing", new POJONode(new Unwritable()));
    CompletableFuture<AgentEntity.Reply> lost =
        sharding()
            .entityRefFor(AgentEntity.ENTITY_TYPE_KEY, agent)
            .<AgentEntity.Reply>ask(
                replyTo -> new AgentEntity.Notify("m", payload, null, replyTo),
                Duration.ofSeconds(3))
            .toCompletableFuture();
    try {
      lost.get(10, TimeUnit.SECONDS);
    } catch (Exception expected) {
      // no answer: the persist was rejected
    }
    assertEquals(202, notify(agent, "{\"type\": \"after\"}").status());
    JsonNode view = view(agent);
    assertEquals(1, view.at("/inbox/unread").asInt(), "only the valid notification is stored");
  }

  // ---- the HTTP layer's own errors ----

  @Test
  @Order(7)
  void theServersOwnErrorsUseTheErrorBodyAndNeverA5xx() {
    int port = node.httpPort();
    Response longUri = RawHttp.send(port, "GET", "/v1/agents/" + "a".repeat(9000), null);
    assertError(longUri, 414, "too_large");

    Response bigHeader =
        RawHttp.send(port, "GET", "/v1/agents", Map.of("X-Big", "h".repeat(20_000)), null);
    assertTrue(
        bigHeader.status() == 431 || bigHeader.status() == 413 || bigHeader.status() == 400,
        bigHeader.toString());
    assertError(bigHeader, bigHeader.status(), bigHeader.status() == 400 ? "invalid" : "too_large");

    assertError(RawHttp.send(port, "GET", "/v1/agents/%zz", null), 400, "invalid");

    Response unknownMethod = RawHttp.send(port, "FROB", "/v1/agents", null);
    assertError(unknownMethod, 405, "method_not_allowed");
    assertNotNull(unknownMethod.header("allow"), unknownMethod.toString());

    Response wrongMethod = RawHttp.send(port, "PATCH", "/v1/agents/a1", "{}");
    assertError(wrongMethod, 405, "method_not_allowed");
    assertNotNull(wrongMethod.header("allow"), wrongMethod.toString());

    Response badVersion =
        RawHttp.sendRaw(
            port, "GET /v1/agents HTTP/7.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.UTF_8));
    assertTrue(badVersion.status() < 500, badVersion.toString());

    Response tooLarge =
        RawHttp.send(
            port,
            "POST",
            "/v1/agents/surrogate-1/notifications",
            Map.of("Content-Type", "application/json"),
            ("{\"type\": \"m\", \"payload\": \"" + "x".repeat(70_000) + "\"}")
                .getBytes(StandardCharsets.UTF_8));
    assertError(tooLarge, 413, "too_large");
  }

  // ---- bounded resources ----

  @Test
  @Order(8)
  void anInboxFullOfBytesIsRefusedWithRetryAfter() throws Exception {
    String agent = register("byte-bound", IDLE);
    String payload = "{\"type\": \"m\", \"payload\": {\"p\": \"" + "x".repeat(600) + "\"}}";
    int accepted = 0;
    Response last = null;
    for (int i = 0; i < 5; i++) {
      last = notify(agent, payload);
      if (last.status() != 202) {
        break;
      }
      accepted++;
    }
    assertTrue(accepted >= 2 && accepted <= 3, "accepted " + accepted);
    assertError(last, 429, "inbox_full");
    assertNotNull(last.header("retry-after"), last.toString());
  }

  @Test
  @Order(9)
  void anAgentKeepsAtMostItsCapOfDeadLetters() throws Exception {
    String agent = register("dead-bound", "{\"capabilities\": [\"t9\"]}");
    for (int i = 0; i < 3; i++) {
      assertEquals(202, notify(agent, "{\"type\": \"m" + i + "\"}").status());
    }
    JsonNode claim =
        claim(
            "{\"runnerId\": \"dl-runner\", \"mode\": \"notification\", \"capabilities\": [\"t9\"],"
                + " \"waitSeconds\": 10}");
    assertEquals(agent, claim.at("/assignment/agentId").asText(), claim.toString());
    assertEquals(
        200,
        post(
                "/v1/leases/" + claim.at("/assignment/leaseId").asText() + "/fail",
                "{\"runnerId\": \"dl-runner\", \"error\": \"no\", \"action\": \"cancel\"}")
            .status());
    assertEquals(2, view(agent).get("deadLetters").asInt());
    eventually(
        () -> {
          JsonNode dead = json(get("/admin/dead-letters?agentId=" + agent));
          assertEquals(2, dead.get("deadLetters").size(), dead.toString());
        });
  }

  @Test
  @Order(10)
  void longPollsPastTheCapAreAnswered503AtOnce() throws Exception {
    List<CompletableFuture<Response>> waiting = new ArrayList<>();
    for (int i = 0; i < 2; i++) {
      String body =
          "{\"runnerId\": \"poll-"
              + i
              + "\", \"mode\": \"exploration\", "
              + "\"capabilities\": [\"nobody-has-this\"], \"waitSeconds\": 6}";
      waiting.add(CompletableFuture.supplyAsync(() -> post("/v1/claims", body)));
    }
    // Both polls are parked by now; the node shows no count of parked polls to await.
    Thread.sleep(1500);
    Response third =
        post(
            "/v1/claims",
            "{\"runnerId\": \"poll-3\", \"mode\": \"exploration\", "
                + "\"capabilities\": [\"nobody-has-this\"], \"waitSeconds\": 6}");
    assertError(third, 503, "unavailable");
    assertNotNull(third.header("retry-after"), third.toString());
    for (CompletableFuture<Response> w : waiting) {
      assertEquals(200, w.get(20, TimeUnit.SECONDS).status());
    }
  }

  // ---- afterwards: every agent of every partition ----

  @Test
  @Order(100)
  void afterwardsEveryAgentIsListedCountedClaimableAndRebuiltAfterARestart() throws Exception {
    Set<String> spread = new HashSet<>();
    Set<Integer> partitions = new HashSet<>();
    for (int i = 0; partitions.size() < PARTITIONS; i++) {
      String id = "spread-" + i;
      if (partitions.add(Partitions.of(id, PARTITIONS))) {
        spread.add(register(id, "{\"capabilities\": [\"spread\"]}"));
      }
    }
    assertEverythingListedAndCounted();

    node.stop();
    node = RotaNode.startWith(nodeConfig(database));
    assertEverythingListedAndCounted();
    for (String id : spread) {
      assertEquals(202, notify(id, "{\"type\": \"after-restart\"}").status());
    }
    assertClaimsAll(spread, "notification", "spread");
    JsonNode stats = json(get("/admin/stats"));
    assertEquals(0, stats.at("/readModel/skippedEvents").asLong(), stats.toString());
  }

  private void assertEverythingListedAndCounted() throws Exception {
    eventually(
        () -> {
          Set<String> listed = new HashSet<>();
          String after = null;
          do {
            JsonNode page =
                json(get("/v1/agents?limit=100" + (after == null ? "" : "&after=" + after)));
            page.get("agents").forEach(a -> listed.add(a.get("agentId").asText()));
            after = page.get("next").isNull() ? null : page.get("next").asText();
          } while (after != null);
          assertTrue(listed.containsAll(registered), "listed " + listed + " of " + registered);
          assertEquals(
              listed.size(), json(get("/admin/stats")).at("/agents/registered").asInt(), "stats");
        });
  }

  // ---- helpers ----

  private String register(String agentId, String body) {
    Response r = put(agentId, body);
    assertTrue(r.status() == 201 || r.status() == 200, r.toString());
    registered.add(agentId);
    return agentId;
  }

  private Response put(String agentId, String body) {
    return RawHttp.send(node.httpPort(), "PUT", "/v1/agents/" + agentId, body);
  }

  private Response notify(String agentId, String body) {
    return post("/v1/agents/" + agentId + "/notifications", body);
  }

  private Response post(String path, String body) {
    return RawHttp.send(node.httpPort(), "POST", path, body);
  }

  private Response get(String path) {
    return RawHttp.send(node.httpPort(), "GET", path, null);
  }

  private JsonNode view(String agentId) throws Exception {
    Response r = get("/v1/agents/" + agentId);
    assertEquals(200, r.status(), r.toString());
    return json(r);
  }

  private JsonNode claim(String body) throws Exception {
    Response r = post("/v1/claims", body);
    assertEquals(200, r.status(), r.toString());
    return json(r);
  }

  /** Claims until every one of {@code agents} was assigned once, completing each. */
  private void assertClaimsAll(Set<String> agents, String mode, String capability)
      throws Exception {
    Set<String> left = new HashSet<>(agents);
    for (int i = 0; i < agents.size() * 3 && !left.isEmpty(); i++) {
      JsonNode claim =
          claim(
              "{\"runnerId\": \"sweeper\", \"mode\": \""
                  + mode
                  + "\", \"capabilities\": [\""
                  + capability
                  + "\"], \"waitSeconds\": 5}");
      if (!"assigned".equals(claim.get("status").asText())) {
        continue;
      }
      left.remove(claim.at("/assignment/agentId").asText());
      post(
          "/v1/leases/" + claim.at("/assignment/leaseId").asText() + "/complete",
          "{\"runnerId\": \"sweeper\"}");
    }
    assertTrue(left.isEmpty(), "never assigned: " + left);
  }

  private static JsonNode json(Response r) {
    try {
      return JSON.readTree(r.body());
    } catch (Exception e) {
      throw new AssertionError("not JSON: " + r, e);
    }
  }

  private static void assertInvalid(Response r, String field) {
    assertError(r, 400, "invalid");
    assertTrue(json(r).get("message").asText().contains("'" + field), r.toString());
  }

  static void assertError(Response r, int status, String code) {
    assertEquals(status, r.status(), r.toString());
    String type = r.header("content-type");
    assertTrue(type != null && type.startsWith("application/json"), r.toString());
    JsonNode body = json(r);
    assertEquals(code, body.path("error").asText(), r.toString());
    assertTrue(body.path("message").isTextual(), r.toString());
  }

  private AgentEntity.Reply ask(
      String agentId,
      org.apache.pekko.japi.function.Function<
              org.apache.pekko.actor.typed.ActorRef<AgentEntity.Reply>, AgentEntity.Command>
          command)
      throws Exception {
    return sharding()
        .entityRefFor(AgentEntity.ENTITY_TYPE_KEY, agentId)
        .ask(command, Duration.ofSeconds(10))
        .toCompletableFuture()
        .get(15, TimeUnit.SECONDS);
  }

  private ClusterSharding sharding() {
    return ClusterSharding.get(node.system());
  }

  private static String idInPartitionOf(String prefix, String other) {
    int partition = Partitions.of(other, PARTITIONS);
    for (int i = 0; ; i++) {
      if (Partitions.of(prefix + i, PARTITIONS) == partition) {
        return prefix + i;
      }
    }
  }

  private static void eventually(ThrowingRunnable assertion) {
    await()
        .atMost(Duration.ofSeconds(20))
        .pollDelay(Duration.ZERO)
        .pollInterval(Duration.ofMillis(200))
        .untilAsserted(assertion::run);
  }

  private interface ThrowingRunnable {
    void run() throws Exception;
  }
}
