package dev.rota.client;

import static dev.rota.client.Calls.encode;
import static dev.rota.client.Calls.read;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import dev.rota.client.Calls.Retry;
import java.util.List;
import java.util.Map;

/**
 * The {@code /admin} calls of a {@link RotaClient} (role admin) but the tenants' ({@link
 * TenantAdmin}): the system's stats and pause, dead letters, pools and runners. Each is retried as
 * its repeat allows: a redrive only when unsent, since a second one would redrive a new letter.
 */
final class AdminCalls {
  private static final TypeReference<Map<String, List<DeadLetter>>> DEAD_LETTERS =
      new TypeReference<>() {};

  private final Calls calls;

  AdminCalls(Calls calls) {
    this.calls = calls;
  }

  Stats stats() {
    return read(calls.call("GET", "admin/stats", null, Retry.ANY), Stats.class);
  }

  /** Pauses or resumes the whole system; returns whether it is paused now. */
  boolean setPaused(boolean paused) {
    String path = paused ? "admin/pause" : "admin/resume";
    return read(calls.call("POST", path, null, Retry.ANY), JsonNode.class)
        .path("paused")
        .asBoolean();
  }

  List<DeadLetter> deadLetters(String agentId, Integer limit) {
    String path = Requests.deadLettersPath(agentId, limit);
    return read(calls.call("GET", path, null, Retry.ANY), DEAD_LETTERS)
        .getOrDefault("deadLetters", List.of());
  }

  void redrive(String deadLetterId) {
    calls.call(
        "POST", "admin/dead-letters/" + encode(deadLetterId) + "/redrive", null, Retry.UNSENT);
  }

  void discard(String deadLetterId) {
    calls.call("DELETE", "admin/dead-letters/" + encode(deadLetterId), null, Retry.ANY_DELETE);
  }

  /** {@code GET} of {@code path} under {@code /admin}, as the server's JSON. */
  JsonNode get(String path) {
    return read(calls.call("GET", "admin/" + path, null, Retry.ANY), JsonNode.class);
  }

  /** {@code POST /admin/runners/{runnerId}/{action}} ({@code drain}, {@code restore}). */
  JsonNode runner(String runnerId, String action) {
    return read(
        calls.call("POST", "admin/runners/" + encode(runnerId) + "/" + action, null, Retry.ANY),
        JsonNode.class);
  }
}
