package dev.rota.client;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Tells a running {@link ActivationHandler} that it must stop: its lease was lost or ran out, or
 * the runner is shutting down. The runner also interrupts the handler's thread, so blocking calls
 * that honour interrupts end at once; long computations should check {@link #isCancelled()} or call
 * {@link #throwIfCancelled()} between steps. Once cancelled, whatever the handler returns is not
 * reported for a lost lease (another runner may already hold the agent).
 */
public final class CancellationToken {

  /** Why an activation was stopped. */
  public enum Reason {
    /** The server answered 410: the lease expired or was superseded. */
    LEASE_LOST,
    /** The lease's time ran out without a successful heartbeat. */
    LEASE_EXPIRED,
    /** The runner stopped and its grace period ended; the lease is handed back. */
    SHUTDOWN,
    /**
     * New input ended the lease ({@code newInput: interrupt}): its notifications are unread again,
     * with the new one, and the agent's next turn has them all. Nothing is reported.
     */
    INTERRUPTED
  }

  private final CountDownLatch cancelled = new CountDownLatch(1);
  private volatile Reason reason;

  CancellationToken() {}

  public boolean isCancelled() {
    return reason != null;
  }

  /** Why, or null while not cancelled. */
  public Reason reason() {
    return reason;
  }

  /**
   * @throws CancelledException if cancelled
   */
  public void throwIfCancelled() {
    Reason r = reason;
    if (r != null) {
      throw new CancelledException(r);
    }
  }

  /** Waits until cancelled or until the timeout passes; true if cancelled. */
  public boolean await(long timeout, TimeUnit unit) throws InterruptedException {
    return cancelled.await(timeout, unit);
  }

  /** Sets the reason once; true if this call cancelled it. */
  synchronized boolean cancel(Reason why) {
    if (reason != null) {
      return false;
    }
    reason = why;
    cancelled.countDown();
    return true;
  }

  /** Thrown by {@link #throwIfCancelled()}. */
  public static final class CancelledException extends RuntimeException {
    private final Reason reason;

    CancelledException(Reason reason) {
      super("activation cancelled: " + reason);
      this.reason = reason;
    }

    public Reason reason() {
      return reason;
    }
  }
}
