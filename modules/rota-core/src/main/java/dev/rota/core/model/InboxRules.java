package dev.rota.core.model;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.BiFunction;

/**
 * The rules of an agent's inbox (unread notifications in arrival order): what a turn carries, and
 * what a failed turn leaves unread or dead-letters. Pure functions over the list {@link AgentState}
 * stores.
 */
final class InboxRules {
  private InboxRules() {}

  /** What a failed turn leaves: the notifications still unread, and the dead letters. */
  record AfterFailure(List<Notification> inbox, List<DeadLetter> deadLetters) {}

  /**
   * The oldest notifications first, at most {@code maxCount} of them and at most {@code maxBytes}
   * together, but always the first one.
   */
  static List<Notification> nextCarried(List<Notification> inbox, int maxCount, long maxBytes) {
    List<Notification> carried = new ArrayList<>(Math.min(maxCount, inbox.size()));
    long bytes = 0;
    for (Notification n : inbox) {
      long size = n.estimatedBytes();
      if (!carried.isEmpty() && (carried.size() >= maxCount || bytes + size > maxBytes)) {
        break;
      }
      carried.add(n);
      bytes += size;
    }
    return carried;
  }

  /**
   * Whether a dedupe key still refuses a repeat at {@code now}: its notification arrived within the
   * window, or is still unread.
   */
  static boolean keyHolds(
      AgentState.DedupeEntry entry, List<Notification> inbox, Instant now, Duration window) {
    return entry.acceptedAt().plus(window).isAfter(now)
        || inbox.stream().anyMatch(n -> n.notificationId().equals(entry.notificationId()));
  }

  /** Sum of {@link Notification#estimatedBytes()} over {@code inbox}. */
  static long bytes(List<Notification> inbox) {
    long bytes = 0;
    for (Notification n : inbox) {
      bytes += n.estimatedBytes();
    }
    return bytes;
  }

  /** The notifications of {@code inbox} that {@code lease} carries. */
  static List<Notification> carried(List<Notification> inbox, Lease lease) {
    Set<String> ids = new HashSet<>(lease.notificationIds());
    return inbox.stream().filter(n -> ids.contains(n.notificationId())).toList();
  }

  /**
   * Retry consumes an attempt of each carried notification and dead-letters those out of attempts;
   * cancel and discard dead-letter them all; snooze consumes nothing.
   *
   * @param deadLetterOf the dead letter of a notification, given the reason
   */
  static AfterFailure failed(
      List<Notification> inbox,
      List<DeadLetter> deadLetters,
      Lease lease,
      FailureAction action,
      String error,
      int maxAttempts,
      BiFunction<Notification, String, DeadLetter> deadLetterOf) {
    Set<String> carried = new HashSet<>(lease.notificationIds());
    List<Notification> newInbox = new ArrayList<>();
    List<DeadLetter> newDead = new ArrayList<>(deadLetters);
    for (Notification n : inbox) {
      if (!carried.contains(n.notificationId()) || action == FailureAction.SNOOZE) {
        newInbox.add(n);
      } else if (action == FailureAction.RETRY) {
        Notification tried = n.withAttempts(n.attempts() + 1);
        if (tried.attempts() >= maxAttempts) {
          newDead.add(deadLetterOf.apply(tried, "attempts exhausted: " + error));
        } else {
          newInbox.add(tried);
        }
      } else {
        newDead.add(deadLetterOf.apply(n, action.wireName() + ": " + error));
      }
    }
    return new AfterFailure(newInbox, newDead);
  }
}
