package dev.rota.core.model;

import java.time.Instant;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The rules of new input during a turn and of debounce over an {@link AgentState}: queries, and the
 * transitions the agent's events apply (docs/architecture.md, "New input during a turn").
 */
public final class NewInputState {
  private NewInputState() {}

  /**
   * Until when a burst of notifications keeps the agent waiting: {@code debounceMs} after the
   * newest unread notification, but no later than {@code debounceMaxMs} after the oldest. Null when
   * the agent does not debounce or has nothing unread; possibly past (then nothing waits).
   */
  public static Instant debounceUntil(AgentState s) {
    AgentConfig config = s.config();
    if (!config.debounces() || s.inbox().isEmpty()) {
      return null;
    }
    Instant oldest = s.inbox().get(0).receivedAt();
    Instant newest = oldest;
    for (Notification n : s.inbox()) {
      if (n.receivedAt().isBefore(oldest)) {
        oldest = n.receivedAt();
      }
      if (n.receivedAt().isAfter(newest)) {
        newest = n.receivedAt();
      }
    }
    Instant quiet = newest.plusMillis(config.debounceMs());
    Instant latest = oldest.plusMillis(config.effectiveDebounceMaxMs());
    return quiet.isBefore(latest) ? quiet : latest;
  }

  /** Whether a debounce keeps the agent waiting at {@code now}. */
  public static boolean isDebouncing(AgentState s, Instant now) {
    Instant until = debounceUntil(s);
    return until != null && until.isAfter(now);
  }

  /**
   * When time alone stops keeping the agent out of the assignment rule: its snooze or its debounce,
   * whichever ends later (what the coordinators' index wakes the agent at). Null when neither.
   */
  public static Instant waitsUntil(AgentState s) {
    Instant debounce = debounceUntil(s);
    Instant snooze = s.snoozedUntil();
    if (debounce == null) {
      return snooze;
    }
    return snooze != null && snooze.isAfter(debounce) ? snooze : debounce;
  }

  /** Whether the lease {@code leaseId} ended because new input interrupted it. */
  public static boolean wasInterrupted(AgentState s, String leaseId) {
    return AgentHistory.interrupted(s.history(), leaseId);
  }

  /** The unread notification {@code notificationId} joins the running lease. */
  public static AgentState steered(AgentState s, String notificationId, Instant at) {
    AgentStateBuilder b = new AgentStateBuilder(s);
    b.lease = s.lease().steered(notificationId);
    return b.build()
        .recorded(
            "notification.steered",
            at,
            Map.of("notificationId", notificationId, "leaseId", s.lease().leaseId()));
  }

  /**
   * The lease without the steered notifications {@code unseen} its runner was not given ({@link
   * Lease#withoutSteered}), so its end leaves them unread for the next turn.
   */
  public static AgentState withoutSteered(AgentState s, Collection<String> unseen) {
    if (s.lease() == null || unseen.isEmpty()) {
      return s;
    }
    AgentStateBuilder b = new AgentStateBuilder(s);
    b.lease = s.lease().withoutSteered(unseen);
    return b.build();
  }

  /**
   * New input ended the running lease: its notifications stay unread with their attempts as they
   * were (the turn did not fail), and the agent is free at once.
   */
  public static AgentState interrupted(AgentState s, String notificationId, Instant at) {
    Lease lease = s.lease();
    Map<String, String> details = new LinkedHashMap<>();
    details.put("leaseId", lease.leaseId());
    details.put("runnerId", lease.runnerId());
    details.put("notificationId", notificationId);
    details.put("notifications", String.valueOf(lease.notificationIds().size()));
    AgentStateBuilder b = new AgentStateBuilder(s);
    b.lease = null;
    return b.build().recorded(AgentHistory.LEASE_INTERRUPTED, at, details);
  }

  /** A notification was refused because a turn was running; nothing of it is kept but this. */
  public static AgentState rejected(AgentState s, String type, Instant at) {
    String leaseId = s.lease() == null ? "" : s.lease().leaseId();
    return s.recorded(
        "notification.rejected", at, Map.of("notificationType", type, "leaseId", leaseId));
  }
}
