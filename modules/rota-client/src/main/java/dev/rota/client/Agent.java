package dev.rota.client;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Instant;
import java.util.List;

/**
 * An agent as the server shows it ({@code GET /v1/agents/{id}}).
 *
 * @param status {@code idle}, {@code leased}, {@code snoozed} or {@code paused}
 * @param lease the lease a runner holds, or null
 * @param deadLetters how many of its notifications are dead-lettered
 */
public record Agent(
    String agentId,
    String name,
    List<String> capabilities,
    int priority,
    long minActivationIntervalSeconds,
    int maxInboxDepth,
    int maxAttempts,
    JsonNode metadata,
    String status,
    Inbox inbox,
    Instant lastActivatedAt,
    long activationCount,
    int deadLetters,
    Lease lease) {

  /** The unread part of the inbox; {@code oldestUnreadAt} is null when it is empty. */
  public record Inbox(int unread, Instant oldestUnreadAt) {}

  /** A held lease. */
  public record Lease(
      String leaseId, String runnerId, String kind, Instant grantedAt, Instant expiresAt) {}
}
