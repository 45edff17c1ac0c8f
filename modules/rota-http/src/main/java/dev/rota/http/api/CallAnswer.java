package dev.rota.http.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.JsonNode;
import java.time.Instant;

/**
 * The answer of {@code GET /v1/calls/{callId}}.
 *
 * @param status pending, answered, failed or timedOut
 * @param result the completion's result, when answered
 * @param error {@code {"reason", "message"}}, when failed or timed out
 * @param answeredAt when the call was answered (or failed, or timed out); absent while pending
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record CallAnswer(
    String callId, String status, JsonNode result, JsonNode error, Instant answeredAt) {}
