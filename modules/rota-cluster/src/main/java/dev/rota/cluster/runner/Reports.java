package dev.rota.cluster.runner;

import dev.rota.cluster.agent.AgentEntity;
import dev.rota.core.model.Ids;
import java.util.HashMap;
import java.util.Map;
import org.slf4j.Logger;

/**
 * A runner's outcomes sent to their agents and not yet acknowledged, and its tallies of how its
 * activations ended. A runner asks for its next activation while the agent persists the last one's
 * end, so several reports may be pending; one whose answer is lost is sent again, up to {@code
 * rota.runners.report-attempts} times.
 */
final class Reports {

  /** An outcome sent to the agent and not yet acknowledged. */
  record Pending(Activation activation, Outcome outcome, int attempt) {
    Pending nextAttempt() {
      return new Pending(activation, outcome, attempt + 1);
    }
  }

  private final String runnerId;
  private final int attempts;
  private final Executor executor;
  private final Logger log;
  private final Map<String, Pending> pending = new HashMap<>();
  private long completed;
  private long failed;
  private long abandoned;

  Reports(String runnerId, int attempts, Executor executor, Logger log) {
    this.runnerId = runnerId;
    this.attempts = attempts;
    this.executor = executor;
    this.log = log;
  }

  void sent(Pending report) {
    pending.put(report.activation().leaseId(), report);
  }

  /** The report pending for this lease, now answered; null when none is. */
  Pending answered(String leaseId) {
    return pending.remove(leaseId);
  }

  boolean isEmpty() {
    return pending.isEmpty();
  }

  /** An activation ended without an outcome the agent took. */
  void countAbandoned() {
    abandoned++;
  }

  long completed() {
    return completed;
  }

  long failed() {
    return failed;
  }

  long abandoned() {
    return abandoned;
  }

  /**
   * Settles the agent's answer to {@code report}: the report to send again when the answer was lost
   * and attempts remain, otherwise null.
   */
  Pending settle(Pending report, AgentEntity.Reply reply, Throwable failure) {
    Activation activation = report.activation();
    String label = Ids.leaseLabel(activation.leaseId());
    if (reply instanceof AgentEntity.Done) {
      if (report.outcome() instanceof Outcome.Completed) {
        completed++;
      } else {
        failed++;
      }
      try {
        executor.reported(activation, report.outcome());
      } catch (RuntimeException e) {
        log.warn("Runner {}: executor's reported() threw {}", runnerId, e);
      }
    } else if (reply instanceof AgentEntity.Rejected rejected) {
      // After a timed-out attempt, a refusal may only mean the earlier attempt got through.
      abandoned++;
      log.warn(
          "Runner {}: agent {} refused the outcome{}: {}",
          runnerId,
          activation.agentId(),
          report.attempt() > 1 ? " (an earlier, unanswered report may have landed)" : "",
          rejected.message());
    } else if (report.attempt() < attempts) {
      log.warn(
          "Runner {}: reporting {} failed ({}), attempt {} of {}",
          runnerId,
          label,
          failure,
          report.attempt(),
          attempts);
      return report.nextAttempt();
    } else {
      abandoned++;
      log.error("Runner {}: gave up reporting {}; the lease will expire", runnerId, label);
    }
    return null;
  }
}
