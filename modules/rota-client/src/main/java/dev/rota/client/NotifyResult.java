package dev.rota.client;

/**
 * The server's answer to a notification.
 *
 * @param unread the agent's unread count after it
 * @param duplicate true when the dedupe key matched an earlier notification, whose id this is
 * @param callId the call's id when the notification was sent as a call; null otherwise
 */
public record NotifyResult(
    String notificationId,
    int unread,
    boolean duplicate,
    boolean steered,
    boolean interrupted,
    String callId) {
  public NotifyResult(String notificationId, int unread, boolean duplicate) {
    this(notificationId, unread, duplicate, false, false, null);
  }

  public NotifyResult(
      String notificationId, int unread, boolean duplicate, boolean steered, boolean interrupted) {
    this(notificationId, unread, duplicate, steered, interrupted, null);
  }
}
