package dev.rota.client;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;

/**
 * The runner role's part of {@link RotaClient} ({@link RotaRunner} uses it): claim, the reports on
 * a lease, report-and-claim again, and a runner's own health. Its public methods are the client's:
 * {@code RotaClient} is its one subclass, the only type callers see them on; the requests
 * themselves are {@link RunnerCalls}'s.
 */
abstract sealed class RunnerClient permits RotaClient {
  final Calls calls;
  final Duration readTimeout;
  private final RunnerCalls runner;

  RunnerClient(Calls calls, Duration readTimeout) {
    this.calls = calls;
    this.readTimeout = readTimeout;
    this.runner = new RunnerCalls(calls, readTimeout);
  }

  /**
   * Asks for work, waiting up to {@code waitSeconds} at the server.
   *
   * @param leaseSeconds null for the server's default
   */
  public ClaimResult claim(
      String runnerId,
      RunnerMode mode,
      Set<String> capabilities,
      int waitSeconds,
      Integer leaseSeconds) {
    return runner.claim(runnerId, mode, capabilities, waitSeconds, leaseSeconds);
  }

  /**
   * Extends a lease by its own length from now; returns the new expiry (server clock).
   *
   * @param runnerId the runner id the lease was claimed with
   * @throws RotaException.LeaseLost if the lease expired or was superseded
   * @throws RotaException.LeaseNotHeld if the lease was granted to another runner
   */
  public Instant heartbeat(String leaseId, String runnerId) {
    return LeaseInput.of((RotaClient) this).heartbeat(leaseId, runnerId).expiresAt();
  }

  /**
   * Completes the activation: every carried notification is read.
   *
   * @param runnerId the runner id the lease was claimed with
   * @param result any JSON for the agent's history; null for none
   * @throws RotaException.LeaseLost if the lease expired or was superseded
   * @throws RotaException.LeaseNotHeld if the lease was granted to another runner
   */
  public void complete(String leaseId, String runnerId, JsonNode result) {
    runner.complete(leaseId, runnerId, result, List.of(), List.of(), null);
  }

  /**
   * Completes the activation and sends {@code sends} with it, in one durable write: they go out if
   * and only if the completion is accepted (docs/api.md, "Agents that work together").
   *
   * @throws RotaException.Invalid naming the item's field when a send is not a valid notification
   *     (then nothing is completed nor sent)
   */
  public void complete(String leaseId, String runnerId, JsonNode result, List<Send> sends) {
    runner.complete(leaseId, runnerId, result, sends, List.of(), null);
  }

  /**
   * Completes the activation with {@code sends}, leaving the calls named in {@code defer} (carried
   * by this turn, or owed from an earlier one: {@link Assignment#owes()}) unanswered: they stay
   * owed, and a later completion that does not defer them answers them (docs/api.md, "Deferred
   * answers").
   *
   * @throws RotaException.Invalid naming {@code defer[i]} when the agent owes no such call (then
   *     nothing is completed nor sent)
   */
  public void complete(
      String leaseId, String runnerId, JsonNode result, List<Send> sends, List<String> defer) {
    runner.complete(leaseId, runnerId, result, sends, defer, null);
  }

  /**
   * Completes the activation as {@link #complete(String, String, JsonNode, List, List)} does,
   * naming the steered notifications the turn was given ({@code inputSeen}, from the input poll or
   * heartbeats): any other notification steered into the lease stays unread for the next turn
   * (docs/api.md, "New input during a turn").
   */
  public void complete(
      String leaseId,
      String runnerId,
      JsonNode result,
      List<Send> sends,
      List<String> defer,
      List<String> inputSeen) {
    runner.complete(leaseId, runnerId, result, sends, defer, inputSeen);
  }

  /**
   * Fails the activation with the outcome's action ({@link Outcome#retry}, {@code cancel}, {@code
   * discard} or {@code snooze}).
   *
   * @param runnerId the runner id the lease was claimed with
   * @throws IllegalArgumentException if {@code outcome} is a completion
   * @throws RotaException.LeaseLost if the lease expired or was superseded
   * @throws RotaException.LeaseNotHeld if the lease was granted to another runner
   */
  public void fail(String leaseId, String runnerId, Outcome outcome) {
    runner.fail(leaseId, runnerId, outcome, null);
  }

  /**
   * Fails the activation as {@link #fail(String, String, Outcome)} does, naming the steered
   * notifications the turn was given: any other stays unread, with no attempt used up.
   */
  public void fail(String leaseId, String runnerId, Outcome outcome, List<String> inputSeen) {
    runner.fail(leaseId, runnerId, outcome, inputSeen);
  }

  /**
   * Reports the activation's outcome and claims again in the same request (docs/api.md, "Complete
   * and claim again"): once the report is durable the server makes the claim, as {@code runnerId},
   * and answers it too, so a turn costs one request. The report stands whatever the claim answers.
   *
   * @param outcome a completion or a failure
   * @param leaseSeconds null for the server's default
   * @return the next claim's answer ({@code none} if the server made none)
   * @throws RotaException.LeaseLost if the lease expired or was superseded (no claim was made)
   * @throws RotaException.LeaseNotHeld if the lease was granted to another runner
   */
  public ClaimResult reportAndClaim(
      String leaseId,
      String runnerId,
      Outcome outcome,
      RunnerMode mode,
      Set<String> capabilities,
      int waitSeconds,
      Integer leaseSeconds) {
    return runner.reportAndClaim(
        leaseId,
        runnerId,
        outcome,
        List.of(),
        List.of(),
        null,
        mode,
        capabilities,
        waitSeconds,
        leaseSeconds);
  }

  /**
   * {@link #reportAndClaim(String, String, Outcome, RunnerMode, Set, int, Integer)} with the turn's
   * sends, which go out only with a completion ({@code outcome} a failure sends nothing).
   */
  public ClaimResult reportAndClaim(
      String leaseId,
      String runnerId,
      Outcome outcome,
      List<Send> sends,
      RunnerMode mode,
      Set<String> capabilities,
      int waitSeconds,
      Integer leaseSeconds) {
    return reportAndClaim(
        leaseId,
        runnerId,
        outcome,
        sends,
        List.of(),
        mode,
        capabilities,
        waitSeconds,
        leaseSeconds);
  }

  /**
   * {@link #reportAndClaim(String, String, Outcome, List, RunnerMode, Set, int, Integer)} leaving
   * the calls named in {@code defer} owed (docs/api.md, "Deferred answers"); a failure defers
   * nothing, since it answers no call.
   */
  public ClaimResult reportAndClaim(
      String leaseId,
      String runnerId,
      Outcome outcome,
      List<Send> sends,
      List<String> defer,
      RunnerMode mode,
      Set<String> capabilities,
      int waitSeconds,
      Integer leaseSeconds) {
    return reportAndClaim(
        leaseId,
        runnerId,
        outcome,
        sends,
        defer,
        null,
        mode,
        capabilities,
        waitSeconds,
        leaseSeconds);
  }

  /**
   * {@link #reportAndClaim(String, String, Outcome, List, List, RunnerMode, Set, int, Integer)}
   * naming the steered notifications the turn took ({@code inputSeen}; null: keeps no cursor).
   */
  ClaimResult reportAndClaim(
      String leaseId,
      String runnerId,
      Outcome outcome,
      List<Send> sends,
      List<String> defer,
      List<String> inputSeen,
      RunnerMode mode,
      Set<String> capabilities,
      int waitSeconds,
      Integer leaseSeconds) {
    boolean completed = outcome instanceof Outcome.Completed;
    return runner.reportAndClaim(
        leaseId,
        runnerId,
        outcome,
        completed ? sends : List.of(),
        completed ? defer : List.of(),
        inputSeen,
        mode,
        capabilities,
        waitSeconds,
        leaseSeconds);
  }

  /**
   * A runner reports its own health: degraded for {@code duration} with a reason (its claims are
   * answered {@code none} with reason {@code degraded} meanwhile), or healthy again ({@code
   * degraded} false; reason and duration are ignored). Returns the server's answer ({@code
   * runnerId}, {@code status}, {@code degraded}).
   */
  public JsonNode reportHealth(
      String runnerId, boolean degraded, String reason, Duration duration) {
    return runner.reportHealth(runnerId, degraded, reason, duration);
  }
}
