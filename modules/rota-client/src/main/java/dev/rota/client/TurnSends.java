package dev.rota.client;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;

/**
 * What a turn sends to other agents: buffered while the handler runs and sent with the turn's
 * completion, in one durable write with it (docs/api.md, "Agents that work together"). A turn that
 * fails, is cancelled or loses its lease sends nothing. The server delivers each item once: a
 * completion retried after a lost answer carries the same items in the same order, and the server's
 * default dedupe key (derived from the lease and the item's index) drops the repeat.
 *
 * <p>A call's answer is not returned here: the server assigns the call's id and delivers the answer
 * as a later {@value Reply#TYPE} notification to this agent (see {@link Reply}).
 */
public final class TurnSends {
  private final List<Send> items = new ArrayList<>();
  private final List<String> defer = new ArrayList<>();
  private boolean closed;

  /** Sends {@code notification} to {@code agentId} when the turn completes. */
  public synchronized void send(String agentId, Notification notification) {
    add(new Send(agentId, notification, null));
  }

  public void send(String agentId, String type, JsonNode payload) {
    send(agentId, Notification.of(type, payload));
  }

  /**
   * Calls {@code agentId} when the turn completes: its answer arrives in a later turn of this agent
   * as a {@link Reply}.
   */
  public synchronized void call(String agentId, Notification notification, CallOptions options) {
    add(new Send(agentId, notification, options == null ? CallOptions.defaults() : options));
  }

  public void call(String agentId, String type, JsonNode payload, CallOptions options) {
    call(agentId, Notification.of(type, payload), options);
  }

  /**
   * Leaves the call {@code callId} (carried by this turn, or owed from an earlier one) unanswered
   * by this turn's completion: the agent still owes it, and a later turn answers it (docs/api.md,
   * "Deferred answers"). Naming a call twice defers it once.
   */
  public synchronized void defer(String callId) {
    if (closed) {
      throw new IllegalStateException("the turn is over: a defer must be made before it returns");
    }
    if (callId == null || callId.isBlank()) {
      throw new IllegalArgumentException("a call id is required");
    }
    if (!defer.contains(callId)) {
      defer.add(callId);
    }
  }

  /** The calls deferred so far, in order. */
  public synchronized List<String> deferred() {
    return List.copyOf(defer);
  }

  /** The items buffered so far, in order. */
  public synchronized List<Send> items() {
    return List.copyOf(items);
  }

  /** The turn is over: later sends are refused, and the items are what its completion carries. */
  synchronized List<Send> close() {
    closed = true;
    return List.copyOf(items);
  }

  private void add(Send send) {
    if (closed) {
      throw new IllegalStateException("the turn is over: a send must be made before it returns");
    }
    items.add(send);
  }
}
