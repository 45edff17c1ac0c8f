package dev.rota.core.model;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.databind.JsonNode;
import java.time.Instant;

/**
 * A notification an agent owes another and has not yet seen accepted: a send of a completed turn,
 * or the reply to a call the agent served. It stays in the sender's outbox until delivered or found
 * undeliverable; both are recorded by an event.
 *
 * @param sendId unique within the sender
 * @param targetKey the target's key (tenant and agent id, see {@code tenant.AgentKeys}), or for the
 *     reply to a producer outside Rota, its call id
 * @param call for a send that is a call, what the target's notification carries
 * @param replyTo for a reply, the call it answers (its type is {@link Replies#TYPE})
 * @param status for a reply, answered or failed
 */
public record OutboxItem(
    String sendId,
    String targetKey,
    String type,
    JsonNode payload,
    String dedupeKey,
    NewInput newInput,
    CallInfo call,
    String replyTo,
    String status,
    Instant at) {

  /** Whether this item answers a call rather than notifying an agent. */
  @JsonIgnore
  public boolean isReply() {
    return replyTo != null;
  }
}
