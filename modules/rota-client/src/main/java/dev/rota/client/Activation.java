package dev.rota.client;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * One activation handed to an {@link ActivationHandler}: the {@link Assignment} the server granted
 * and the {@link CancellationToken} that says when to stop.
 *
 * @param runnerId the slot's runner id, as the server knows it
 * @param input the notifications steered into this turn while it runs ({@code newInput: steer}); an
 *     interrupt ({@code newInput: interrupt}) cancels the token with {@link
 *     CancellationToken.Reason#INTERRUPTED}
 * @param sends what the turn sends and calls; it goes out with the turn's completion only
 */
public record Activation(
    Assignment assignment,
    CancellationToken cancellation,
    String runnerId,
    TurnInput input,
    TurnSends sends) {

  public Activation(Assignment assignment, CancellationToken cancellation, String runnerId) {
    this(assignment, cancellation, runnerId, new TurnInput(), new TurnSends());
  }

  public Activation(
      Assignment assignment, CancellationToken cancellation, String runnerId, TurnInput input) {
    this(assignment, cancellation, runnerId, input, new TurnSends());
  }

  /**
   * Sends a notification to another agent of the tenant with this turn's completion (never if the
   * turn fails).
   */
  public void send(String agentId, String type, JsonNode payload) {
    sends.send(agentId, type, payload);
  }

  public void send(String agentId, Notification notification) {
    sends.send(agentId, notification);
  }

  /**
   * Calls another agent of the tenant with this turn's completion. Nothing comes back here: the
   * server assigns the call's id, and the answer arrives in a later turn of this agent as a
   * notification of type {@value Reply#TYPE} ({@link Assignment.Item#reply()}).
   */
  public void call(String agentId, String type, JsonNode payload, CallOptions options) {
    sends.call(agentId, type, payload, options);
  }

  public void call(String agentId, Notification notification, CallOptions options) {
    sends.call(agentId, notification, options);
  }

  /**
   * Every call this turn may answer: those its notifications carry ({@link
   * Assignment.Item#call()}), then those earlier turns deferred ({@link Assignment#owes()}).
   * Completing the turn answers each with its result, unless {@link #defer deferred}.
   */
  public java.util.List<CallInfo> owes() {
    java.util.List<CallInfo> all = new java.util.ArrayList<>();
    assignment.notifications().stream()
        .map(Assignment.Item::call)
        .filter(java.util.Objects::nonNull)
        .forEach(all::add);
    all.addAll(assignment.owes());
    return java.util.List.copyOf(all);
  }

  /**
   * Leaves the call {@code callId} unanswered by this turn's completion: the agent keeps owing it,
   * and answers it with the result of a later turn, for example once the calls this turn makes have
   * their replies (docs/api.md, "Deferred answers").
   */
  public void defer(String callId) {
    sends.defer(callId);
  }

  /** {@link #defer Defers} every call this turn may answer ({@link #owes()}). */
  public void deferAll() {
    owes().forEach(c -> sends.defer(c.callId()));
  }

  public String agentId() {
    return assignment.agentId();
  }

  public String leaseId() {
    return assignment.leaseId();
  }

  public boolean isCancelled() {
    return cancellation.isCancelled();
  }
}
