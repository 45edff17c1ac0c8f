package dev.rota.http.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.JsonNode;

/**
 * The answer of {@code POST /v1/leases/{leaseId}/input}.
 *
 * @param notifications the notifications steered into the turn that the runner had not been given
 *     (they are the lease's now), as an assignment shows them
 * @param interrupted the lease was interrupted: the runner stops, and its reports answer 410
 * @param reason {@code interrupted} when interrupted, absent otherwise
 */
public record InputAnswer(
    JsonNode notifications,
    boolean interrupted,
    @JsonInclude(JsonInclude.Include.NON_NULL) String reason) {}
