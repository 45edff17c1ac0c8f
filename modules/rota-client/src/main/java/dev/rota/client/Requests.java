package dev.rota.client;

import static dev.rota.client.Calls.encode;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/** The request bodies and query strings of {@link RotaClient}'s calls, as the server reads them. */
final class Requests {
  private Requests() {}

  static ObjectNode claim(
      String runnerId,
      RunnerMode mode,
      Set<String> capabilities,
      int waitSeconds,
      Integer leaseSeconds) {
    ObjectNode request = Json.MAPPER.createObjectNode();
    request.put("runnerId", runnerId);
    request.put("mode", mode.wireName());
    request.set("capabilities", Json.MAPPER.valueToTree(capabilities));
    request.put("waitSeconds", waitSeconds);
    if (leaseSeconds != null) {
      request.put("leaseSeconds", leaseSeconds);
    }
    return request;
  }

  /** The {@code next} of a report: a claim's fields without its runner (the lease's). */
  static ObjectNode next(
      RunnerMode mode, Set<String> capabilities, int waitSeconds, Integer leaseSeconds) {
    ObjectNode next = claim("-", mode, capabilities, waitSeconds, leaseSeconds);
    next.remove("runnerId");
    return next;
  }

  /** A lease call's body: the runner id the lease was claimed with. */
  static ObjectNode byRunner(String runnerId) {
    ObjectNode request = Json.MAPPER.createObjectNode();
    request.put("runnerId", runnerId);
    return request;
  }

  /**
   * A completion's body: the runner id, the result when there is one, and the turn's sends when
   * there are some (a node from before sends then refuses the field rather than drop them), and the
   * calls it defers when there are some (likewise).
   */
  static ObjectNode complete(
      String runnerId,
      JsonNode result,
      List<Send> sends,
      List<String> defer,
      List<String> inputSeen) {
    ObjectNode request = withInputSeen(byRunner(runnerId), inputSeen);
    if (result != null) {
      request.set("result", result);
    }
    if (!sends.isEmpty()) {
      ArrayNode items = request.putArray("send");
      sends.forEach(send -> items.add(send.toJson()));
    }
    if (!defer.isEmpty()) {
      ArrayNode items = request.putArray("defer");
      defer.forEach(items::add);
    }
    return request;
  }

  /** A producer's notification that is a call: its fields and {@code "call": {timeoutSeconds}}. */
  static ObjectNode call(Notification notification, Duration timeout) {
    ObjectNode request = Json.MAPPER.valueToTree(notification);
    ObjectNode call = request.putObject("call");
    if (timeout != null) {
      call.put("timeoutSeconds", Math.max(1, timeout.toSeconds()));
    }
    return request;
  }

  /** A failure's body; a completion is refused ({@link IllegalArgumentException}). */
  static ObjectNode fail(String runnerId, Outcome outcome, List<String> inputSeen) {
    if (!(outcome instanceof Outcome.Failed failed)) {
      throw new IllegalArgumentException("not a failure: " + outcome);
    }
    return fail(runnerId, failed, inputSeen);
  }

  static ObjectNode fail(String runnerId, Outcome.Failed failed, List<String> inputSeen) {
    ObjectNode request = withInputSeen(byRunner(runnerId), inputSeen);
    request.put("action", failed.action().wireName());
    if (failed.error() != null) {
      request.put("error", failed.error());
    }
    if (failed.action() == Outcome.Action.SNOOZE) {
      request.put("snoozeSeconds", failed.snooze().toSeconds());
    }
    return request;
  }

  /** {@code request} with the runner's cursor on new input, when it keeps one (not null). */
  private static ObjectNode withInputSeen(ObjectNode request, List<String> inputSeen) {
    if (inputSeen != null) {
      ArrayNode items = request.putArray("inputSeen");
      inputSeen.forEach(items::add);
    }
    return request;
  }

  /** The expiry of a heartbeat's answer (server clock); null when the answer has none. */
  static Instant expiresAt(byte[] answer) {
    String expiresAt = Calls.read(answer, JsonNode.class).path("expiresAt").asText(null);
    return expiresAt == null ? null : Instant.parse(expiresAt);
  }

  /** A runner's health; reason and duration count only when degraded. */
  static ObjectNode health(boolean degraded, String reason, Duration duration) {
    ObjectNode request = Json.MAPPER.createObjectNode();
    request.put("degraded", degraded);
    if (degraded) {
      if (reason != null) {
        request.put("reason", reason);
      }
      request.put("seconds", Math.max(1, duration.toSeconds()));
    }
    return request;
  }

  /** The path of {@code GET /v1/agents} for {@code query}: its order, limit and cursor. */
  static String agentsPath(AgentQuery query) {
    StringBuilder path =
        new StringBuilder("v1/agents?order=")
            .append(encode(query.order() == null ? "stalest" : query.order()));
    if (query.limit() != null) {
      path.append("&limit=").append(query.limit());
    }
    if (query.after() != null) {
      path.append("&after=").append(encode(query.after()));
    }
    return path.toString();
  }

  /**
   * @param agentId null for every agent's
   * @param limit null for the server's default
   */
  static String deadLettersPath(String agentId, Integer limit) {
    List<String> params = new ArrayList<>();
    if (agentId != null) {
      params.add("agentId=" + encode(agentId));
    }
    if (limit != null) {
      params.add("limit=" + limit);
    }
    return "admin/dead-letters" + (params.isEmpty() ? "" : "?" + String.join("&", params));
  }

  /** The body of {@code PUT /admin/tenants/{tenant}}; a null cap is sent as null (no cap). */
  static ObjectNode tenant(int weight, Integer maxConcurrent, Integer maxActivationsPerMinute) {
    ObjectNode body = Json.MAPPER.createObjectNode();
    body.put("weight", weight);
    body.put("maxConcurrent", maxConcurrent);
    body.put("maxActivationsPerMinute", maxActivationsPerMinute);
    return body;
  }
}
