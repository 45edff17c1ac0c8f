package dev.rota.core.model;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * One item of a completion's {@code send}: a notification for another agent of the sender's tenant,
 * delivered if and only if the completion is durable.
 *
 * @param dedupeKey null: one derived from the sender's lease and the item's index
 * @param newInput null: the target's own
 * @param call null for a plain send
 */
public record Send(
    String agentId,
    String type,
    JsonNode payload,
    String dedupeKey,
    NewInput newInput,
    CallRequest call) {}
