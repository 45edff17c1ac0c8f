package dev.rota.client;

import java.time.Duration;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * One slot of a {@link RotaRunner}, on its own thread: claims, runs the handler on what it gets
 * while a {@link LeaseKeeper} keeps the lease, and reports the outcome (on a reporter thread, while
 * it claims again); waits as the server says when refused, and hands back what it gets once the
 * runner stops.
 */
final class Slot {
  private static final Duration MAX_ERROR_BACKOFF = Duration.ofSeconds(10);

  /** How often a slot waiting out a refusal looks whether its runner reported healthy. */
  private static final Duration HEALTH_CHECK = Duration.ofMillis(200);

  private final RotaRunner runner;

  /** The runner id this slot claims with. */
  private final String slotId;

  Slot(RotaRunner runner, String slotId) {
    this.runner = runner;
    this.slotId = slotId;
  }

  void loop() {
    Duration backoff = Duration.ofMillis(500);
    while (!runner.isStopping()) {
      ClaimResult result;
      try {
        result =
            runner.client.claim(
                slotId, runner.mode, runner.capabilities, runner.waitSeconds, runner.leaseSeconds);
        backoff = Duration.ofMillis(500);
      } catch (RuntimeException e) {
        runner.listener.onError("claim", e);
        pause(backoff);
        backoff =
            backoff.multipliedBy(2).compareTo(MAX_ERROR_BACKOFF) > 0
                ? MAX_ERROR_BACKOFF
                : backoff.multipliedBy(2);
        continue;
      }
      if (result.assigned()) {
        if (runner.isStopping()) {
          handBack(slotId, result.assignment(), "runner stopping");
        } else {
          run(slotId, result.assignment());
        }
      } else if (result.paused()) {
        pause(Duration.ofSeconds(Math.max(1, Math.min(runner.waitSeconds, 5))));
      } else if (result.refused()) {
        // Degraded or draining: ask again when told, or at once after reporting healthy.
        runner.listener.onRefused(slotId, result.reason());
        pauseUntilHealthChanges(
            Duration.ofSeconds(
                result.retryAfterSeconds() == null ? 5 : result.retryAfterSeconds()));
      }
    }
  }

  private void run(String slotId, Assignment assignment) {
    long claimedAt = System.nanoTime();
    LeaseKeeper keeper =
        new LeaseKeeper(
            assignment,
            slotId,
            Thread.currentThread(),
            claimedAt,
            runner.leaseSeconds,
            runner.heartbeatInterval,
            runner.heartbeatFraction,
            runner.client,
            runner.listener,
            runner.timers,
            runner.followInput.follows(assignment),
            runner.waitSeconds,
            runner.followers);
    synchronized (runner.running) {
      runner.running.add(keeper);
    }
    boolean reporting = false;
    try {
      runner.listener.onClaimed(assignment);
      keeper.start();
      Outcome outcome;
      try {
        outcome =
            runner.handler.handle(new Activation(assignment, keeper.token, slotId, keeper.input));
        if (outcome == null) {
          outcome = Outcome.retry("handler returned no outcome");
        }
      } catch (Throwable t) {
        outcome = Outcome.retry(String.valueOf(t));
      } finally {
        keeper.handlerDone();
      }
      CancellationToken.Reason reason = keeper.token.reason();
      if (reason == null) {
        reporting = reportWhileClaiming(keeper, outcome);
      } else {
        if (reason == CancellationToken.Reason.SHUTDOWN) {
          handBack(slotId, assignment, "runner stopped before the activation finished");
        }
        runner.listener.onCancelled(assignment, reason);
      }
    } finally {
      if (!reporting) {
        done(keeper);
      }
    }
  }

  /**
   * Reports on the runner's reporter threads while this slot claims its next activation, as the
   * in-cluster runner does: a turn then waits for one round trip and one commit (the claim's), not
   * two. The activation counts as running ({@link RotaRunner#busySlots()}, what stopping waits for)
   * until its report is answered. Reports inline when the reporters are gone (stopping).
   */
  private boolean reportWhileClaiming(LeaseKeeper keeper, Outcome outcome) {
    try {
      runner.reporters.execute(
          () -> {
            try {
              report(keeper, outcome);
            } finally {
              done(keeper);
            }
          });
      return true;
    } catch (RejectedExecutionException e) {
      report(keeper, outcome);
      return false;
    }
  }

  private void done(LeaseKeeper keeper) {
    synchronized (runner.running) {
      runner.running.remove(keeper);
    }
  }

  private void report(LeaseKeeper keeper, Outcome outcome) {
    Assignment assignment = keeper.assignment;
    boolean answerLost = false;
    while (true) {
      try {
        if (outcome instanceof Outcome.Completed completed) {
          runner.client.complete(assignment.leaseId(), keeper.slotId, completed.result());
        } else {
          runner.client.fail(assignment.leaseId(), keeper.slotId, outcome);
        }
        runner.listener.onReported(assignment, outcome);
        return;
      } catch (RotaException.LeaseLost e) {
        if (!answerLost) {
          runner.listener.onCancelled(
              assignment,
              e.interrupted()
                  ? CancellationToken.Reason.INTERRUPTED
                  : CancellationToken.Reason.LEASE_LOST);
        }
        return; // after a lost answer, 410 most likely means the first report went through
      } catch (RotaException.Connection e) {
        answerLost |= e.requestSent();
        if (keeper.expired()) {
          runner.listener.onError("report", e);
          return;
        }
        pause(Duration.ofMillis(500));
      } catch (RuntimeException e) {
        runner.listener.onError("report", e);
        return;
      }
    }
  }

  private void handBack(String slotId, Assignment assignment, String why) {
    try {
      runner.client.fail(assignment.leaseId(), slotId, Outcome.snooze(Duration.ZERO, why));
    } catch (RotaException.LeaseLost e) {
      // nothing to hand back
    } catch (RuntimeException e) {
      runner.listener.onError("hand back", e);
    }
  }

  /** Waits out a refusal; ends early when the runner stops or reports itself healthy. */
  private void pauseUntilHealthChanges(Duration duration) {
    long deadline = System.nanoTime() + duration.toNanos();
    int reports = runner.healthyReports.get();
    long left;
    while (!runner.isStopping()
        && runner.healthyReports.get() == reports
        && (left = deadline - System.nanoTime()) > 0) {
      pause(Duration.ofNanos(Math.min(left, HEALTH_CHECK.toNanos())));
    }
  }

  /** Waits, ending early when the runner stops. */
  private void pause(Duration duration) {
    try {
      runner.stopping.await(duration.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
