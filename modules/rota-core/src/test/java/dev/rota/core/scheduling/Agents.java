package dev.rota.core.scheduling;

import java.time.Duration;
import java.time.Instant;
import java.util.Set;

/** Test rows: an idle, never-activated agent requiring nothing, changed only where a test cares. */
final class Agents {

  static final Instant T0 = Instant.parse("2025-01-01T12:00:00Z");

  private Agents() {}

  static Builder agent(String agentId) {
    return new Builder(agentId);
  }

  static final class Builder {
    private final String agentId;
    private Set<String> capabilities = Set.of();
    private int priority;
    private int unread;
    private Instant oldestUnreadAt;
    private Instant lastActivatedAt;
    private Duration minActivationInterval = Duration.ZERO;
    private boolean leased;
    private boolean paused;
    private Instant snoozedUntil;
    private Instant nextFireAt;

    private Builder(String agentId) {
      this.agentId = agentId;
    }

    Builder requires(String... capabilities) {
      this.capabilities = Set.of(capabilities);
      return this;
    }

    Builder priority(int priority) {
      this.priority = priority;
      return this;
    }

    Builder unread(int unread, Instant oldestUnreadAt) {
      this.unread = unread;
      this.oldestUnreadAt = oldestUnreadAt;
      return this;
    }

    Builder lastActivatedAt(Instant lastActivatedAt) {
      this.lastActivatedAt = lastActivatedAt;
      return this;
    }

    Builder minActivationInterval(Duration minActivationInterval) {
      this.minActivationInterval = minActivationInterval;
      return this;
    }

    Builder leased() {
      this.leased = true;
      return this;
    }

    Builder paused() {
      this.paused = true;
      return this;
    }

    Builder snoozedUntil(Instant snoozedUntil) {
      this.snoozedUntil = snoozedUntil;
      return this;
    }

    Builder nextFireAt(Instant nextFireAt) {
      this.nextFireAt = nextFireAt;
      return this;
    }

    AgentSchedule build() {
      return new AgentSchedule(
          agentId,
          capabilities,
          priority,
          unread,
          oldestUnreadAt,
          lastActivatedAt,
          minActivationInterval,
          leased,
          paused,
          snoozedUntil,
          nextFireAt);
    }
  }
}
