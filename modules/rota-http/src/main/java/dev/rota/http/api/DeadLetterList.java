package dev.rota.http.api;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Instant;
import java.util.List;

/** The answer of {@code GET /admin/dead-letters}, newest first. */
public record DeadLetterList(List<DeadLetterView> deadLetters) {

  /**
   * One dead letter.
   *
   * @param id what {@code POST /admin/dead-letters/{id}/redrive} and {@code DELETE
   *     /admin/dead-letters/{id}} take
   * @param agentId the agent's id within its tenant
   * @param tenant the tenant the agent belongs to
   * @param payload the notification's payload as JSON, null when it had none
   * @param attempts attempts used up before it died
   * @param reason why it died: {@code attempts exhausted: <error>} or {@code <action>: <error>}
   */
  public record DeadLetterView(
      String id,
      String agentId,
      String tenant,
      String notificationId,
      String type,
      JsonNode payload,
      int attempts,
      String reason,
      Instant deadAt) {}
}
