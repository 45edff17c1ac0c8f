package dev.rota.server;

import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.rota.server.testing.NodeHttp;
import java.time.Duration;
import java.util.List;

/**
 * What an upgrade fixture holds, written through a real node's HTTP API ({@link
 * UpgradeFixtureWriter}): agents in two tenants with unread notifications, one holding a lease, one
 * with a schedule, one with dead letters, one with a snapshot and events after it, a call from
 * outside Rota and a group of calls between agents with one reply in and one outstanding, and a
 * tenant an admin configured. {@link #record} then writes down, in the manifest beside the fixture,
 * what the node answered about all of it, for {@code UpgradeFixtureTest} to hold a newer node to.
 *
 * <p>Each agent requires a capability of its own ({@code fx-<agent>}), so a claim offering only
 * that capability can be given only that agent.
 */
final class UpgradeFixtureScenario {
  /** The node snapshots an agent every this many events while writing the fixture. */
  static final int SNAPSHOT_EVERY = 10;

  /** The held lease's length: short, since a recovered lease is held a whole length (dec. 46). */
  static final int LEASE_SECONDS = 10;

  /** The calls' timeout: they are open in the fixture and past their deadline soon after. */
  static final int CALL_TIMEOUT_SECONDS = 300;

  static final String ACME = "acme";
  static final String DEFAULT = "default";

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String RUNNER = "fixture-runner";

  private final NodeHttp http;
  private final ObjectNode manifest = JSON.createObjectNode();
  private final ArrayNode agents = manifest.putArray("agents");

  UpgradeFixtureScenario(NodeHttp http) {
    this.http = http;
  }

  /** Writes the fixture's content into the node; the held lease is taken last. */
  ObjectNode write() {
    http.json(
        "PUT",
        "/admin/tenants/" + ACME,
        "{\"weight\": 3, \"maxConcurrent\": 4, \"maxActivationsPerMinute\": 600}",
        201);

    register(DEFAULT, "inbox", "{\"name\": \"Inbox agent\", \"priority\": 5}");
    notify(DEFAULT, "inbox", "{\"type\": \"mention\", \"payload\": {\"postId\": \"p1\"}}");
    notify(
        DEFAULT,
        "inbox",
        "{\"type\": \"mention\", \"payload\": {\"postId\": \"p2\"}, \"dedupeKey\": \"p2\"}");
    JsonNode outside =
        notify(
            DEFAULT,
            "inbox",
            "{\"type\": \"question\", \"payload\": {\"q\": \"status?\"},"
                + " \"call\": {\"timeoutSeconds\": "
                + CALL_TIMEOUT_SECONDS
                + "}}");
    ObjectNode outsideCall = manifest.putObject("outsideCall");
    outsideCall.put("callId", outside.get("callId").asText());
    outsideCall.put("tenant", DEFAULT);
    outsideCall.put("agentId", "inbox");
    // Its deadline is at most this plus the timeout.
    outsideCall.put("madeBefore", java.time.Instant.now().toString());

    register(
        DEFAULT,
        "scheduled",
        "{\"schedules\": [{\"name\": \"yearly\", \"cron\": \"0 3 1 1 *\","
            + " \"timezone\": \"Europe/Berlin\", \"payload\": {\"task\": \"report\"}}]}");

    register(DEFAULT, "dead", "{\"maxAttempts\": 1}");
    notify(DEFAULT, "dead", "{\"type\": \"job\", \"payload\": {\"n\": 1}}");
    notify(DEFAULT, "dead", "{\"type\": \"job\", \"payload\": {\"n\": 2}}");
    JsonNode doomed = claim("dead", 60);
    http.json(
        "POST",
        "/v1/leases/" + doomed.get("leaseId").asText() + "/fail",
        "{\"runnerId\": \"" + RUNNER + "\", \"error\": \"fixture\", \"action\": \"cancel\"}",
        200);
    notify(DEFAULT, "dead", "{\"type\": \"job\", \"payload\": {\"n\": 3}}");

    // Registered, six notifications, a turn (grant and completion), four more: 13 events, the
    // snapshot at the 10th.
    register(DEFAULT, "snapshotted", "{}");
    for (int i = 1; i <= 6; i++) {
      notify(DEFAULT, "snapshotted", "{\"type\": \"tick\", \"payload\": {\"n\": " + i + "}}");
    }
    complete(claim("snapshotted", 60), "{\"runnerId\": \"" + RUNNER + "\", \"result\": {}}");
    for (int i = 7; i <= 10; i++) {
      notify(DEFAULT, "snapshotted", "{\"type\": \"tick\", \"payload\": {\"n\": " + i + "}}");
    }
    manifest.putObject("snapshot").put("tenant", DEFAULT).put("agentId", "snapshotted");

    writeGroupCall();

    register(DEFAULT, "leased", "{}");
    notify(DEFAULT, "leased", "{\"type\": \"job\", \"payload\": {\"n\": 1}}");
    notify(DEFAULT, "leased", "{\"type\": \"job\", \"payload\": {\"n\": 2}}");
    JsonNode lease = claim("leased", LEASE_SECONDS);
    ObjectNode held = manifest.putObject("lease");
    held.put("tenant", DEFAULT).put("agentId", "leased").put("leaseSeconds", LEASE_SECONDS);
    ArrayNode carried = held.putArray("notificationIds");
    lease.get("notifications").forEach(n -> carried.add(n.get("notificationId").asText()));
    held.put("attempt", lease.get("attempt").asInt());
    return manifest;
  }

  /**
   * acme's planner calls coder and reviewer in one group; coder answers, so the planner holds that
   * reply until reviewer's comes, which is still unread in reviewer's inbox.
   */
  private void writeGroupCall() {
    register(ACME, "planner", "{}");
    register(ACME, "coder", "{}");
    register(ACME, "reviewer", "{}");
    notify(ACME, "planner", "{\"type\": \"kickoff\", \"payload\": {}}");
    String call =
        "{\"agentId\": \"%s\", \"type\": \"task\", \"payload\": {\"step\": \"%s\"},"
            + " \"call\": {\"timeoutSeconds\": "
            + CALL_TIMEOUT_SECONDS
            + ", \"group\": \"review\"}}";
    complete(
        claim("planner", 60),
        "{\"runnerId\": \""
            + RUNNER
            + "\", \"result\": {}, \"send\": ["
            + call.formatted("coder", "code")
            + ", "
            + call.formatted("reviewer", "review")
            + "]}");
    await("both calls delivered")
        .atMost(Duration.ofSeconds(20))
        .pollInterval(Duration.ofMillis(100))
        .until(() -> servedCalls(ACME, "coder") == 1 && servedCalls(ACME, "reviewer") == 1);
    JsonNode coderTurn = claim("coder", 60);
    String answered = coderTurn.get("notifications").get(0).get("call").get("callId").asText();
    complete(coderTurn, "{\"runnerId\": \"" + RUNNER + "\", \"result\": {\"ok\": true}}");
    await("the planner holds coder's reply")
        .atMost(Duration.ofSeconds(20))
        .pollInterval(Duration.ofMillis(100))
        .until(() -> answeredCalls(ACME, "planner") == 1);
    JsonNode made = view(ACME, "planner").get("calls").get("made");
    ObjectNode group = manifest.putObject("groupCall");
    group.put("tenant", ACME).put("caller", "planner").put("group", "review");
    group.put("answeredCallId", answered);
    for (JsonNode c : made) {
      if (!c.get("callId").asText().equals(answered)) {
        group.put("pendingCallId", c.get("callId").asText());
        group.put("deadline", c.get("deadline").asText());
      }
    }
  }

  /**
   * What the node answers now about everything the scenario wrote: every agent's view, the dead
   * letters, the tenants and the call from outside.
   */
  ObjectNode record() {
    for (JsonNode agent : agents) {
      ((ObjectNode) agent)
          .set("view", view(agent.get("tenant").asText(), agent.get("agentId").asText()));
    }
    manifest.set("deadLetters", http.json("GET", "/admin/dead-letters?limit=1000", null, 200));
    manifest.set("tenants", http.json("GET", "/admin/tenants", null, 200));
    ObjectNode outside = (ObjectNode) manifest.get("outsideCall");
    outside.set(
        "answer", http.json("GET", "/v1/calls/" + outside.get("callId").asText(), null, 200));
    return manifest;
  }

  static String agentPath(String tenant, String agentId) {
    return "/v1/agents/" + agentId + (DEFAULT.equals(tenant) ? "" : "?tenant=" + tenant);
  }

  static String capability(String agentId) {
    return "fx-" + agentId;
  }

  private JsonNode view(String tenant, String agentId) {
    return http.json("GET", agentPath(tenant, agentId), null, 200);
  }

  private int servedCalls(String tenant, String agentId) {
    return view(tenant, agentId).get("calls").get("servedCount").asInt();
  }

  private int answeredCalls(String tenant, String agentId) {
    int answered = 0;
    for (JsonNode call : view(tenant, agentId).get("calls").get("made")) {
      answered += call.get("answered").asBoolean() ? 1 : 0;
    }
    return answered;
  }

  private void register(String tenant, String agentId, String config) {
    ObjectNode body = (ObjectNode) parse(config);
    body.putArray("capabilities").add(capability(agentId));
    http.json("PUT", agentPath(tenant, agentId), body.toString(), 201);
    agents.addObject().put("tenant", tenant).put("agentId", agentId);
  }

  private JsonNode notify(String tenant, String agentId, String notification) {
    String path = "/v1/agents/" + agentId + "/notifications";
    return http.json(
        "POST", DEFAULT.equals(tenant) ? path : path + "?tenant=" + tenant, notification, 202);
  }

  /** The assignment of a claim that only {@code agentId} fits. */
  private JsonNode claim(String agentId, int leaseSeconds) {
    JsonNode answer =
        http.json(
            "POST",
            "/v1/claims",
            JSON.createObjectNode()
                .put("runnerId", RUNNER)
                .put("mode", "notification")
                .put("waitSeconds", 10)
                .put("leaseSeconds", leaseSeconds)
                .set("capabilities", JSON.valueToTree(List.of(capability(agentId))))
                .toString(),
            200);
    if (!"assigned".equals(answer.get("status").asText())
        || !agentId.equals(answer.get("assignment").get("agentId").asText())) {
      throw new IllegalStateException("a claim for " + agentId + " answered " + answer);
    }
    return answer.get("assignment");
  }

  private void complete(JsonNode assignment, String body) {
    http.json("POST", "/v1/leases/" + assignment.get("leaseId").asText() + "/complete", body, 200);
  }

  private static JsonNode parse(String json) {
    try {
      return JSON.readTree(json);
    } catch (java.io.IOException e) {
      throw new IllegalArgumentException(json, e);
    }
  }
}
