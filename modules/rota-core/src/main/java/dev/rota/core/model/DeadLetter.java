package dev.rota.core.model;

import java.time.Instant;

/**
 * A notification that ran out of attempts, or was cancelled or discarded. Stays with its agent
 * until an admin redrives or discards it.
 *
 * @param id routes to the agent: see {@link Ids#deadLetterId}
 */
public record DeadLetter(String id, Notification notification, String reason, Instant deadAt) {}
