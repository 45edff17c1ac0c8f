package dev.rota.client;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * One slot of a {@link RotaRunner}, on its own thread: claims, runs the handler on what it gets
 * while a {@link LeaseKeeper} keeps the lease, and reports the outcome with its next claim in the
 * same request (docs/api.md, "Complete and claim again"), so a turn is one request; waits as the
 * server says when refused, and hands back what it gets once the runner stops.
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
    ClaimResult next = null;
    while (!runner.isStopping()) {
      ClaimResult result = next;
      next = null;
      if (result == null) {
        try {
          result =
              runner.client.claim(
                  slotId,
                  runner.mode,
                  runner.capabilities,
                  runner.waitSeconds,
                  runner.leaseSeconds);
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
      }
      if (result.assigned()) {
        if (runner.isStopping()) {
          handBack(slotId, result.assignment(), "runner stopping");
        } else {
          next = run(slotId, result.assignment());
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
    if (next != null && next.assigned()) {
      handBack(slotId, next.assignment(), "runner stopping");
    }
  }

  /** Runs one activation and reports it; the answer of the claim its report carried, if any. */
  private ClaimResult run(String slotId, Assignment assignment) {
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
    try {
      runner.listener.onClaimed(assignment);
      keeper.start();
      Outcome outcome;
      TurnSends sends = new TurnSends();
      try {
        outcome =
            runner.handler.handle(
                new Activation(assignment, keeper.token, slotId, keeper.input, sends));
        if (outcome == null) {
          outcome = Outcome.retry("handler returned no outcome");
        }
      } catch (Throwable t) {
        outcome = Outcome.retry(String.valueOf(t));
      } finally {
        keeper.handlerDone();
      }
      // Sends ride on the completion only; the same list goes with every try of the report.
      List<Send> buffered = sends.close();
      List<Send> sent = outcome instanceof Outcome.Completed ? buffered : List.of();
      List<String> defer = sends.deferred();
      CancellationToken.Reason reason = keeper.token.reason();
      if (reason == null) {
        if (runner.isStopping() || runner.nextRefused) {
          report(keeper, outcome, sent, defer, false);
          return null;
        }
        return reportAndClaim(keeper, outcome, sent, defer);
      }
      if (reason == CancellationToken.Reason.SHUTDOWN) {
        handBack(slotId, assignment, "runner stopped before the activation finished");
      }
      runner.listener.onCancelled(assignment, reason);
      return null;
    } finally {
      synchronized (runner.running) {
        runner.running.remove(keeper);
      }
    }
  }

  /**
   * Reports with the slot's next claim in the same request: one round trip per turn, the claim made
   * by the server once the report is durable. The activation counts as running ({@link
   * RotaRunner#busySlots()}, what stopping waits for) until the report is answered, so the claim it
   * carries does not wait ({@code waitSeconds} 0, answered within the server's settle): when it
   * finds nothing the slot long-polls as usual, so an idle slot is never counted as busy and
   * stopping never waits out a long poll behind a report. A report whose answer was lost goes again
   * without the claim (a lease granted to a lost answer expires and counts as a retry).
   */
  private ClaimResult reportAndClaim(
      LeaseKeeper keeper, Outcome outcome, List<Send> sends, List<String> defer) {
    Assignment assignment = keeper.assignment;
    try {
      ClaimResult next =
          runner.client.reportAndClaim(
              assignment.leaseId(),
              keeper.slotId,
              outcome,
              sends,
              defer,
              keeper.input.taken(),
              runner.mode,
              runner.capabilities,
              0,
              runner.leaseSeconds);
      runner.listener.onReported(assignment, outcome);
      return next;
    } catch (RotaException.LeaseLost e) {
      runner.listener.onCancelled(assignment, CancellationToken.Reason.LEASE_LOST);
    } catch (RotaException.Invalid e) {
      if (e.getMessage() == null || !e.getMessage().contains("unknown field 'next'")) {
        runner.listener.onError("report", e);
        return null;
      }
      // A node from before "next": nothing was reported; report alone from now on.
      runner.nextRefused = true;
      report(keeper, outcome, sends, defer, false);
    } catch (RotaException.Connection e) {
      if (keeper.expired()) {
        runner.listener.onError("report", e);
      } else {
        pause(Duration.ofMillis(500));
        report(keeper, outcome, sends, defer, e.requestSent());
      }
    } catch (RuntimeException e) {
      runner.listener.onError("report", e);
    }
    return null;
  }

  /**
   * Reports alone, again while the connection fails and the lease lasts.
   *
   * @param answerLost whether an earlier try of this report may have reached the server
   */
  private void report(
      LeaseKeeper keeper,
      Outcome outcome,
      List<Send> sends,
      List<String> defer,
      boolean answerLost) {
    Assignment assignment = keeper.assignment;
    while (true) {
      try {
        if (outcome instanceof Outcome.Completed completed) {
          runner.client.complete(
              assignment.leaseId(),
              keeper.slotId,
              completed.result(),
              sends,
              defer,
              keeper.input.taken());
        } else {
          runner.client.fail(assignment.leaseId(), keeper.slotId, outcome, keeper.input.taken());
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
