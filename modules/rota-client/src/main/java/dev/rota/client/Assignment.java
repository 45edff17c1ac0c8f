package dev.rota.client;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * An activation granted by {@code POST /v1/claims}: the lease and everything the agent's turn
 * carries.
 *
 * @param kind {@code inbox}, {@code scheduled} or {@code exploration}
 * @param attempt 1 on the first try of the carried notifications
 * @param expiresAt by the server's clock; heartbeat well before it
 * @param more true when some unread notifications stay for the next turn
 * @param schedule the schedule that fired, for a {@code scheduled} turn; null otherwise
 */
public record Assignment(
    String leaseId,
    String agentId,
    String kind,
    int attempt,
    Instant grantedAt,
    Instant expiresAt,
    List<Item> notifications,
    AgentInfo agent,
    boolean more,
    Schedule schedule,
    List<CallInfo> owes) {

  /**
   * {@code owes}: the calls earlier turns deferred, which this turn may answer (none from a node
   * from before deferred answers).
   */
  public Assignment {
    notifications = notifications == null ? List.of() : notifications;
    owes = owes == null ? List.of() : List.copyOf(owes);
  }

  /**
   * One carried notification.
   *
   * @param call set when the notification is a call: completing the turn answers it
   */
  public record Item(
      String notificationId,
      String type,
      JsonNode payload,
      Instant receivedAt,
      int attempt,
      CallInfo call) {

    public Item(
        String notificationId, String type, JsonNode payload, Instant receivedAt, int attempt) {
      this(notificationId, type, payload, receivedAt, attempt, null);
    }

    /** Whether this is the reply to a call this agent made ({@value Reply#TYPE}). */
    public boolean isReply() {
      return Reply.isReply(this);
    }

    /** The reply this notification carries; empty when it is not one. */
    public Optional<Reply> reply() {
      return Reply.from(this);
    }
  }

  /** The agent's configuration that a runner needs. */
  /**
   * @param newInput the agent's {@code newInput} ({@code queue}, {@code steer}, {@code interrupt}
   *     or {@code reject}); null from servers before it existed
   */
  public record AgentInfo(
      String name, List<String> capabilities, JsonNode metadata, String newInput) {
    public AgentInfo(String name, List<String> capabilities, JsonNode metadata) {
      this(name, capabilities, metadata, null);
    }
  }

  public record Schedule(String name, Instant firedAt, JsonNode payload) {}
}
