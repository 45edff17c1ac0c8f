package dev.rota.cluster.runner;

import java.time.Duration;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;

/**
 * The timers that keep a running activation's lease: a heartbeat every third of the lease (or
 * {@code rota.runners.heartbeat-interval}), and the lease's expiry, which a successful heartbeat
 * moves.
 */
final class LeaseTimers {
  private static final String HEARTBEAT = "heartbeat";
  private static final String LEASE_EXPIRY = "lease-expiry";

  private final TimerScheduler<Runner.Command> timers;
  private final RunnerSettings settings;

  LeaseTimers(TimerScheduler<Runner.Command> timers, RunnerSettings settings) {
    this.timers = timers;
    this.settings = settings;
  }

  void start(Activation activation) {
    String leaseId = activation.leaseId();
    long intervalMillis =
        settings.heartbeatInterval() != null
            ? settings.heartbeatInterval().toMillis()
            : Math.max(1000, activation.lease().leaseSeconds() * 1000 / 3);
    timers.startTimerWithFixedDelay(
        HEARTBEAT, new Runner.HeartbeatDue(leaseId), Duration.ofMillis(intervalMillis));
    expireIn(leaseId, Duration.ofSeconds(activation.lease().leaseSeconds()));
  }

  /**
   * A heartbeat sent at {@code sentNanos} (this node's monotonic clock) renewed the lease for a
   * lease length from when the agent handled it, which is after it was sent.
   */
  void renewed(Activation activation, long sentNanos) {
    Duration sinceSent = Duration.ofNanos(System.nanoTime() - sentNanos);
    expireIn(
        activation.leaseId(),
        Duration.ofSeconds(activation.lease().leaseSeconds()).minus(sinceSent));
  }

  void stop() {
    timers.cancel(HEARTBEAT);
    timers.cancel(LEASE_EXPIRY);
  }

  /**
   * Stops the activation when {@code left} has passed, unless a heartbeat moves it first. Measured
   * on this node's monotonic clock (the timer's), never by comparing the lease's {@code expiresAt}
   * with this node's wall clock: the agent's host enforces the lease on its own monotonic clock
   * from the grant or the renewal, which both come before this runner hears of them.
   */
  private void expireIn(String leaseId, Duration left) {
    timers.startSingleTimer(
        LEASE_EXPIRY, new Runner.LeaseExpired(leaseId), left.isNegative() ? Duration.ZERO : left);
  }
}
