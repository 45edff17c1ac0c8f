package dev.rota.http.api;

/**
 * The 202 answer to a notification.
 *
 * @param notificationId the new notification's id, or the first one's when a duplicate
 * @param unread the agent's unread count after this notification
 * @param duplicate true when an earlier notification with the same dedupe key stands for it
 * @param steered true when it joined the turn running now ({@code newInput: steer})
 * @param interrupted true when it ended the turn running now ({@code newInput: interrupt})
 */
public record NotificationAccepted(
    String notificationId, int unread, boolean duplicate, boolean steered, boolean interrupted) {
  public NotificationAccepted(String notificationId, int unread, boolean duplicate) {
    this(notificationId, unread, duplicate, false, false);
  }
}
