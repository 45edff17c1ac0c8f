package dev.rota.client;

import static dev.rota.client.Calls.body;
import static dev.rota.client.Calls.encode;
import static dev.rota.client.Calls.leasePath;
import static dev.rota.client.Calls.read;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.rota.client.Calls.Retry;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;

/**
 * The calls a runner makes through a {@link RotaClient} (role runner; {@link RotaRunner} uses
 * them): claim, the reports on a lease, report-and-claim again, and its own health. A claim or
 * report is not retried once it may have reached the server ({@link Retry#UNSENT}: a repeat could
 * grant or report twice), and one that waits for work at the server may take that wait longer than
 * the read timeout.
 */
final class RunnerCalls {
  private final Calls calls;
  private final Duration readTimeout;

  RunnerCalls(Calls calls, Duration readTimeout) {
    this.calls = calls;
    this.readTimeout = readTimeout;
  }

  JsonNode reportHealth(String runnerId, boolean degraded, String reason, Duration duration) {
    ObjectNode request = Requests.health(degraded, reason, duration);
    return read(
        calls.call("POST", "v1/runners/" + encode(runnerId) + "/health", body(request), Retry.ANY),
        JsonNode.class);
  }

  ClaimResult claim(
      String runnerId,
      RunnerMode mode,
      Set<String> capabilities,
      int waitSeconds,
      Integer leaseSeconds) {
    ObjectNode request = Requests.claim(runnerId, mode, capabilities, waitSeconds, leaseSeconds);
    Duration timeout = Duration.ofSeconds(waitSeconds).plus(readTimeout);
    return read(
        calls.call("POST", "v1/claims", body(request), Retry.UNSENT, timeout), ClaimResult.class);
  }

  Instant heartbeat(String leaseId, String runnerId) {
    ObjectNode request = Requests.byRunner(runnerId);
    return Requests.expiresAt(
        calls.call("POST", leasePath(leaseId) + "/heartbeat", body(request), Retry.UNSENT));
  }

  void complete(
      String leaseId,
      String runnerId,
      JsonNode result,
      List<Send> sends,
      List<String> defer,
      List<String> inputSeen) {
    ObjectNode request = Requests.complete(runnerId, result, sends, defer, inputSeen);
    report(leasePath(leaseId) + "/complete", request, null);
  }

  void fail(String leaseId, String runnerId, Outcome outcome, List<String> inputSeen) {
    ObjectNode request = Requests.fail(runnerId, outcome, inputSeen);
    report(leasePath(leaseId) + "/fail", request, null);
  }

  ClaimResult reportAndClaim(
      String leaseId,
      String runnerId,
      Outcome outcome,
      List<Send> sends,
      List<String> defer,
      List<String> inputSeen,
      RunnerMode mode,
      Set<String> capabilities,
      int waitSeconds,
      Integer leaseSeconds) {
    ObjectNode request;
    String action;
    if (outcome instanceof Outcome.Completed completed) {
      request = Requests.complete(runnerId, completed.result(), sends, defer, inputSeen);
      action = "/complete";
    } else if (outcome instanceof Outcome.Failed failed) {
      request = Requests.fail(runnerId, failed, inputSeen);
      action = "/fail";
    } else {
      throw new IllegalArgumentException("not an outcome to report: " + outcome);
    }
    request.set("next", Requests.next(mode, capabilities, waitSeconds, leaseSeconds));
    Duration timeout = Duration.ofSeconds(waitSeconds).plus(readTimeout).plus(readTimeout);
    byte[] answer = report(leasePath(leaseId) + action, request, timeout);
    JsonNode next = read(answer, JsonNode.class).get("next");
    // A server that made no claim is answered as a claim that found nothing: the runner asks again.
    return next == null || !next.isObject()
        ? new ClaimResult("none", null)
        : Json.MAPPER.convertValue(next, ClaimResult.class);
  }

  /**
   * Sends a report; a node from before the runner's cursor refuses {@code inputSeen} as an unknown
   * field and does nothing, so the report goes once more without it (to that node, every steered
   * notification is the turn's, as it was before the field). Decided per request: after a rolling
   * upgrade the same address is a node that knows the field.
   */
  private byte[] report(String path, ObjectNode request, Duration timeout) {
    try {
      return send(path, request, timeout);
    } catch (RotaException.Invalid e) {
      if (!request.has("inputSeen")
          || e.getMessage() == null
          || !e.getMessage().contains(UNKNOWN_INPUT_SEEN)) {
        throw e;
      }
      request.remove("inputSeen");
      return send(path, request, timeout);
    }
  }

  private byte[] send(String path, ObjectNode request, Duration timeout) {
    return timeout == null
        ? calls.call("POST", path, body(request), Retry.UNSENT)
        : calls.call("POST", path, body(request), Retry.UNSENT, timeout);
  }

  private static final String UNKNOWN_INPUT_SEEN = "unknown field 'inputSeen'";
}
