package dev.rota.cluster.readmodel;

/**
 * The cluster-wide counters the read model keeps in {@code rota_counter}, exactly once per event.
 */
public enum Counter {
  /** Leases granted for inbox work. */
  ACTIVATIONS_INBOX("activations.inbox"),
  /** Leases granted for staleness work. */
  ACTIVATIONS_EXPLORATION("activations.exploration"),
  /** Leases granted for a due schedule. */
  ACTIVATIONS_SCHEDULED("activations.scheduled"),
  ACTIVATIONS_COMPLETED("activations.completed"),
  /** Failures reported by runners, whatever the action (retry, cancel, discard, snooze). */
  ACTIVATIONS_FAILED("activations.failed"),
  /** Leases that expired without a completion or failure. */
  ACTIVATIONS_EXPIRED("activations.expired"),
  /** Leases that new input ended ({@code newInput: interrupt}). */
  ACTIVATIONS_INTERRUPTED("activations.interrupted"),
  NOTIFICATIONS_ACCEPTED("notifications.accepted"),
  NOTIFICATIONS_DEAD_LETTERED("notifications.dead_lettered");

  private final String key;

  Counter(String key) {
    this.key = key;
  }

  /** The name in {@code rota_counter.name}. */
  public String key() {
    return key;
  }
}
