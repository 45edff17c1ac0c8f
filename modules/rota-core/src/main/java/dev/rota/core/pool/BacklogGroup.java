package dev.rota.core.pool;

import java.time.Instant;
import java.util.Objects;
import java.util.Set;

/**
 * The unpaused agents that require one capability set and share one minimum activation interval,
 * summed: what the pool scaler reads from the read model each round.
 *
 * @param agents unpaused agents of the group
 * @param withInbox those with unread notifications, leased or not
 * @param waiting those with unread notifications that a runner could claim now (not leased, not
 *     snoozed)
 * @param oldestUnreadAt the oldest unread notification of the group; null when none
 * @param stalestAt the oldest last activation among the group's agents without unread work and
 *     without a lease (registration for a never-activated one); null when none
 */
public record BacklogGroup(
    Set<String> capabilities,
    long minIntervalSeconds,
    long agents,
    long withInbox,
    long waiting,
    Instant oldestUnreadAt,
    Instant stalestAt) {

  public BacklogGroup {
    capabilities = Set.copyOf(capabilities);
    Objects.requireNonNull(capabilities, "capabilities");
    if (minIntervalSeconds < 0 || agents < 0 || withInbox < 0 || waiting < 0) {
      throw new IllegalArgumentException("counts must not be negative");
    }
  }
}
