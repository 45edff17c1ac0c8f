package dev.rota.cluster.agent;

import dev.rota.core.model.Lease;
import java.time.Duration;
import java.util.function.LongSupplier;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;

/**
 * When an agent's lease ends, on this node's monotonic clock, whatever the lease's {@code
 * expiresAt} says (the granting node's wall clock, shown as advice). A lease is timed when its
 * grant or renewal is persisted, and when a recovered agent holds one: how much was left when its
 * last host stopped cannot be known without trusting that host's wall clock, and a whole lease
 * length from now is never shorter.
 */
final class LeaseTimer {
  private static final String EXPIRY_TIMER = "lease-expiry";

  private final TimerScheduler<AgentEntity.Command> timers;
  private final LongSupplier nanoTime;
  private final Duration expiryGrace;

  /** The lease {@link #deadline} is for; null when no lease was timed in this incarnation. */
  private String timedLeaseId;

  /** When {@link #timedLeaseId} ends, on {@link #nanoTime}. */
  private long deadline;

  LeaseTimer(
      TimerScheduler<AgentEntity.Command> timers, LongSupplier nanoTime, Duration expiryGrace) {
    this.timers = timers;
    this.nanoTime = nanoTime;
    this.expiryGrace = expiryGrace;
  }

  /** Starts {@code lease}'s time: it ends a lease length from now. */
  void start(Lease lease) {
    timedLeaseId = lease.leaseId();
    deadline = nanoTime.getAsLong() + Duration.ofSeconds(lease.leaseSeconds()).toNanos();
    scheduleExpiry(left(lease));
  }

  /** What is left of {@code lease} (zero or less: it is over). */
  Duration left(Lease lease) {
    if (!lease.leaseId().equals(timedLeaseId)) {
      start(lease);
    }
    return Duration.ofNanos(deadline - nanoTime.getAsLong());
  }

  /** The agent expires the lease itself {@code left} (plus the grace) from now. */
  void scheduleExpiry(Duration left) {
    Duration delay = left.plus(expiryGrace);
    timers.startSingleTimer(
        EXPIRY_TIMER,
        new AgentEntity.ExpireLease(timedLeaseId, null),
        delay.isNegative() ? Duration.ZERO : delay);
  }

  /** The runner reported the end of the activation: no expiry any more. */
  void stop() {
    timers.cancel(EXPIRY_TIMER);
  }
}
