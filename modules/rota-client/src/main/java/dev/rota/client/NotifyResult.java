package dev.rota.client;

/**
 * The server's answer to a notification.
 *
 * @param unread the agent's unread count after it
 * @param duplicate true when the dedupe key matched an earlier notification, whose id this is
 */
public record NotifyResult(
    String notificationId, int unread, boolean duplicate, boolean steered, boolean interrupted) {
  public NotifyResult(String notificationId, int unread, boolean duplicate) {
    this(notificationId, unread, duplicate, false, false);
  }
}
