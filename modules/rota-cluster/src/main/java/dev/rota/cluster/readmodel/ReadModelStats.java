package dev.rota.cluster.readmodel;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;

/**
 * A summary of the read model at {@code at}, for {@code GET /admin/stats} and the pool scaler. As
 * fresh as the last committed write (the journal writes the read model with the events).
 *
 * @param registered registered agents
 * @param withInbox agents with at least one unread notification
 * @param leased agents whose lease is held
 * @param paused agents paused on their own
 * @param snoozed agents snoozed beyond {@code at}
 * @param unread unread notifications over all agents
 * @param oldestUnreadAt receive time of the oldest unread notification, null when none
 * @param deadLetters dead letters over all agents
 * @param stalestAt the oldest last activation among registered agents, a never-activated agent
 *     counting from its registration; null when there are no agents
 * @param counters every {@link Counter} by {@link Counter#key()}, summed over partitions, 0 when
 *     never counted
 * @param skippedEvents events the read model could not apply and skipped (rota_skipped_event)
 */
public record ReadModelStats(
    Instant at,
    long registered,
    long withInbox,
    long leased,
    long paused,
    long snoozed,
    long unread,
    Instant oldestUnreadAt,
    long deadLetters,
    Instant stalestAt,
    Map<String, Long> counters,
    long skippedEvents) {

  public ReadModelStats {
    counters = Map.copyOf(counters);
  }

  public long counter(Counter counter) {
    return counters.getOrDefault(counter.key(), 0L);
  }

  /** How long the oldest unread notification has waited; zero when none. */
  public Duration oldestUnreadAge() {
    return ageOf(oldestUnreadAt);
  }

  /** How long the stalest agent has gone without an activation; zero when there are no agents. */
  public Duration maxStaleness() {
    return ageOf(stalestAt);
  }

  private Duration ageOf(Instant since) {
    if (since == null || since.isAfter(at)) {
      return Duration.ZERO;
    }
    return Duration.between(since, at);
  }
}
