package dev.rota.cluster.runner.executor;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.rota.cluster.runner.Outcome;
import dev.rota.core.model.FailureAction;
import java.util.Optional;

/**
 * How the {@code process} and {@code http} executors read what a script or webhook gave back. It is
 * also the one way a failed run chooses what happens to the activation: a failing run (non-zero
 * exit, non-2xx status) whose output is the JSON object {@code {"action":
 * "retry|cancel|discard|snooze", "error": "...", "snoozeSeconds": 60}} fails with that action
 * instead of the executor's default.
 */
final class OutputJson {
  static final ObjectMapper MAPPER =
      new ObjectMapper().enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

  private OutputJson() {}

  /** The text as JSON, or empty when it is blank or not (exactly one) JSON value. */
  static Optional<JsonNode> parse(String text) {
    if (text == null || text.isBlank()) {
      return Optional.empty();
    }
    try {
      return Optional.ofNullable(MAPPER.readTree(text));
    } catch (Exception e) {
      return Optional.empty();
    }
  }

  /** The failure the output asks for, if it names a known action. */
  static Optional<Outcome> requested(String output, String defaultError) {
    return parse(output)
        .filter(JsonNode::isObject)
        .flatMap(
            node -> {
              FailureAction action = FailureAction.fromWire(node.path("action").asText(null));
              if (action == null) {
                return Optional.empty();
              }
              String error = node.hasNonNull("error") ? node.get("error").asText() : defaultError;
              return Optional.of(
                  new Outcome.Failed(action, error, node.path("snoozeSeconds").asLong(0)));
            });
  }

  /** At most the last {@code max} characters, marked when cut. */
  static String tail(String text, int max) {
    String trimmed = text.strip();
    return trimmed.length() <= max ? trimmed : "…" + trimmed.substring(trimmed.length() - max);
  }
}
