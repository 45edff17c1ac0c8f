package dev.rota.core.model;

import java.time.Instant;

/**
 * A call an agent made and has not yet been answered for, kept by the caller with its deadline. The
 * call of a group that has its reply holds it here ({@code heldReply}) until every call of the
 * group has one.
 *
 * @param targetAgentId the callee, as its tenant knows it
 * @param leaseId the caller's turn that made the call: a group is one turn's
 * @param group null when the call stands alone
 * @param heldReply null until a call of a group is replied to
 */
public record OpenCall(
    String callId,
    String targetAgentId,
    String leaseId,
    String group,
    Instant sentAt,
    Instant deadline,
    Notification heldReply) {

  public boolean held() {
    return heldReply != null;
  }

  /** Whether this call belongs to the same group of the same turn as {@code other}. */
  public boolean sameGroupAs(OpenCall other) {
    return group != null && group.equals(other.group) && leaseId.equals(other.leaseId);
  }

  OpenCall holding(Notification reply) {
    return new OpenCall(callId, targetAgentId, leaseId, group, sentAt, deadline, reply);
  }
}
