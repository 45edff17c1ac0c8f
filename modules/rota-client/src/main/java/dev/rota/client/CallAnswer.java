package dev.rota.client;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Instant;

/**
 * Where a producer's call stands: {@code GET /v1/calls/{callId}}, or what {@link RotaClient#call}
 * waited for. {@link CallStatus#PENDING} when the wait ended before the answer.
 *
 * @param result the answering turn's completion result, when answered; may be null
 * @param error why, when failed; null otherwise
 * @param answeredAt when the call got its answer (server clock); null while pending
 */
public record CallAnswer(
    String callId, CallStatus status, JsonNode result, CallError error, Instant answeredAt) {

  public boolean pending() {
    return status == CallStatus.PENDING;
  }

  public boolean answered() {
    return status == CallStatus.ANSWERED;
  }
}
