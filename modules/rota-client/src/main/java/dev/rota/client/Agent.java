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
 * @param schedules its schedules, each with its next unserved fire (empty from older servers)
 * @param scheduled its earliest unserved fire and whether it has come (null from older servers)
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
    Lease lease,
    List<Schedule> schedules,
    Scheduled scheduled) {

  public Agent {
    schedules = schedules == null ? List.of() : List.copyOf(schedules);
  }

  /**
   * A schedule: 5-field cron in an IANA time zone; {@code nextFireAt} is its earliest fire no turn
   * has served yet (in the past while due), null when it never fires again.
   */
  public record Schedule(
      String name, String cron, String timezone, JsonNode payload, Instant nextFireAt) {}

  /** The earliest unserved fire over all schedules (null without any), and whether it has come. */
  public record Scheduled(Instant nextFireAt, boolean due) {}

  /** The unread part of the inbox; {@code oldestUnreadAt} is null when it is empty. */
  public record Inbox(int unread, Instant oldestUnreadAt) {}

  /** A held lease: its holder and expiry (the server never shows its id here). */
  public record Lease(String runnerId, String kind, Instant grantedAt, Instant expiresAt) {}
}
