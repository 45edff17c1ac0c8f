package dev.rota.core.model;

/**
 * What a notification that is a call carries to its target, and what the target's notification
 * shows: {@code {"callId", "from": {"tenant", "agentId"}, "depth"}}. When the turn that carried it
 * completes, or the notification becomes a dead letter, the reply goes to {@code from}.
 *
 * @param depth 1 for a call made by a turn that serves none; one more for each call it serves
 */
public record CallInfo(String callId, Party from, int depth) {

  /**
   * Who made a call: an agent of a tenant, or (agentId null) a producer outside Rota whose answer
   * is kept under the call id.
   */
  public record Party(String tenant, String agentId) {}
}
