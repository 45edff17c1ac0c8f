package dev.rota.http.api;

import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * The 202 answer to a notification.
 *
 * @param notificationId the new notification's id, or the first one's when a duplicate
 * @param unread the agent's unread count after this notification
 * @param duplicate true when an earlier notification with the same dedupe key stands for it
 * @param steered true when it joined the turn running now ({@code newInput: steer}); absent
 *     otherwise, so an agent that queues answers as it always did
 * @param interrupted true when it ended the turn running now ({@code newInput: interrupt}); absent
 *     otherwise
 * @param callId the call it makes, for {@code GET /v1/calls/{callId}}; absent when it is none
 */
public record NotificationAccepted(
    String notificationId,
    int unread,
    boolean duplicate,
    @JsonInclude(JsonInclude.Include.NON_DEFAULT) boolean steered,
    @JsonInclude(JsonInclude.Include.NON_DEFAULT) boolean interrupted,
    @JsonInclude(JsonInclude.Include.NON_NULL) String callId) {
  public NotificationAccepted(String notificationId, int unread, boolean duplicate) {
    this(notificationId, unread, duplicate, false, false, null);
  }

  public NotificationAccepted(
      String notificationId, int unread, boolean duplicate, boolean steered, boolean interrupted) {
    this(notificationId, unread, duplicate, steered, interrupted, null);
  }
}
