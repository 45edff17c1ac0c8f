package dev.rota.client;

import java.time.Duration;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Keeps one lease: heartbeats it, and stops the handler when the server says it is lost or when it
 * runs out by the local clock (measured from the claim's sending, so never later than the server's
 * expiry). It hands the handler the notifications steered into the turn ({@link TurnInput}): those
 * a heartbeat's answer carries, and, when it follows the input, those of a long poll on {@code
 * /input} that also hears of an interrupt at once (else the next heartbeat's 410 tells).
 */
final class LeaseKeeper {

  final Assignment assignment;

  /** The runner id the slot claimed with: the server takes reports from it only. */
  final String slotId;

  final CancellationToken token = new CancellationToken();
  final TurnInput input = new TurnInput();
  private final boolean followInput;

  /** How long one long poll for new input waits; it outlives its turn by at most this. */
  private final int followWaitSeconds;

  /** Where the thread that follows the input is registered, so that stopping can wait for it. */
  private final java.util.List<Thread> followers;

  private final Thread worker;
  private final RotaClient client;
  private final RunnerListener listener;
  private final ScheduledExecutorService timers;
  private final long leaseNanos;
  private final long heartbeatNanos;
  private volatile long deadlineNanos;
  private boolean handlerRunning = true;
  private ScheduledFuture<?> heartbeats;
  private ScheduledFuture<?> deadlineCheck;

  /**
   * @param leaseSeconds the lease the runner asked for; null when it took the server's default
   * @param heartbeatInterval a fixed interval; null heartbeats every {@code heartbeatFraction} of
   *     the lease
   * @param claimedAt when the claim was sent, on {@link System#nanoTime()}'s clock
   */
  LeaseKeeper(
      Assignment assignment,
      String slotId,
      Thread worker,
      long claimedAt,
      Integer leaseSeconds,
      Duration heartbeatInterval,
      double heartbeatFraction,
      RotaClient client,
      RunnerListener listener,
      ScheduledExecutorService timers,
      boolean followInput,
      int followWaitSeconds,
      java.util.List<Thread> followers) {
    this.followInput = followInput;
    this.followWaitSeconds = Math.max(1, followWaitSeconds);
    this.followers = followers;
    this.assignment = assignment;
    this.slotId = slotId;
    this.worker = worker;
    this.client = client;
    this.listener = listener;
    this.timers = timers;
    long length =
        leaseSeconds != null
            ? TimeUnit.SECONDS.toNanos(leaseSeconds)
            : Duration.between(assignment.grantedAt(), assignment.expiresAt()).toNanos();
    this.leaseNanos = Math.max(length, TimeUnit.SECONDS.toNanos(1));
    this.deadlineNanos = claimedAt + leaseNanos;
    this.heartbeatNanos =
        heartbeatInterval != null
            ? heartbeatInterval.toNanos()
            : (long) (leaseNanos * heartbeatFraction);
  }

  synchronized void start() {
    long every = heartbeatNanos;
    heartbeats =
        timers.scheduleWithFixedDelay(
            this::heartbeat, every, Math.max(every, 1), TimeUnit.NANOSECONDS);
    scheduleDeadline();
    if (followInput) {
      Thread follower = new Thread(this::followInput, worker.getName() + "-input");
      follower.setDaemon(true);
      synchronized (followers) {
        followers.removeIf(t -> !t.isAlive());
        followers.add(follower);
      }
      follower.start();
    }
  }

  private synchronized boolean handlerRunning() {
    return handlerRunning;
  }

  /** Long-polls for new input while the handler runs. */
  private void followInput() {
    while (!token.isCancelled() && handlerRunning()) {
      try {
        LeaseInput.NewInput in =
            LeaseInput.of(client).await(assignment.leaseId(), slotId, followWaitSeconds);
        if (in.interrupted()) {
          cancel(CancellationToken.Reason.INTERRUPTED);
          return;
        }
        input.offer(in.notifications());
      } catch (RotaException.LeaseLost e) {
        if (handlerRunning()) {
          cancel(
              e.interrupted()
                  ? CancellationToken.Reason.INTERRUPTED
                  : CancellationToken.Reason.LEASE_LOST);
        }
        return;
      } catch (RotaException.LeaseNotHeld e) {
        return;
      } catch (RuntimeException e) {
        if (!handlerRunning()) {
          return;
        }
        listener.onError("input", e);
        try {
          Thread.sleep(500);
        } catch (InterruptedException stop) {
          return;
        }
      }
    }
  }

  private synchronized void scheduleDeadline() {
    if (deadlineCheck != null) {
      deadlineCheck.cancel(false);
    }
    if (!handlerRunning) {
      return;
    }
    long delay = Math.max(0, deadlineNanos - System.nanoTime());
    deadlineCheck = timers.schedule(this::checkDeadline, delay, TimeUnit.NANOSECONDS);
  }

  private void checkDeadline() {
    if (expired()) {
      cancel(CancellationToken.Reason.LEASE_EXPIRED);
    } else {
      scheduleDeadline();
    }
  }

  boolean expired() {
    return System.nanoTime() - deadlineNanos >= 0;
  }

  private void heartbeat() {
    if (token.isCancelled()) {
      return;
    }
    long sentAt = System.nanoTime();
    try {
      LeaseInput.LeaseBeat beat = LeaseInput.of(client).heartbeat(assignment.leaseId(), slotId);
      deadlineNanos = sentAt + leaseNanos;
      scheduleDeadline();
      input.offer(beat.notifications());
    } catch (RotaException.LeaseLost e) {
      cancel(
          e.interrupted()
              ? CancellationToken.Reason.INTERRUPTED
              : CancellationToken.Reason.LEASE_LOST);
    } catch (RuntimeException e) {
      listener.onError("heartbeat", e); // the deadline check stops the handler in time
    }
  }

  /** Cancels the token and interrupts the handler if it is still running. */
  synchronized void cancel(CancellationToken.Reason reason) {
    if (token.cancel(reason) && handlerRunning) {
      worker.interrupt();
    }
    stopTimers();
  }

  /** Called by the slot thread when the handler returned; clears a late interrupt. */
  void handlerDone() {
    synchronized (this) {
      handlerRunning = false;
      stopTimers();
    }
    input.end();
    Thread.interrupted();
  }

  private void stopTimers() {
    if (heartbeats != null) {
      heartbeats.cancel(false);
    }
    if (deadlineCheck != null) {
      deadlineCheck.cancel(false);
    }
  }
}
