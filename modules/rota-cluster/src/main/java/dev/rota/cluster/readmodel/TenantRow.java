package dev.rota.cluster.readmodel;

import java.time.Instant;

/**
 * One tenant's agents in the read model: how many, their unread notifications (and the oldest), the
 * leases they hold, and the runner time those leases have held inside the last minute.
 *
 * @param oldestUnreadAt null when no agent of the tenant has unread notifications
 * @param heldRunnerMillisLastMinute for each lease held now, the part of the last minute since its
 *     grant, summed
 */
public record TenantRow(
    String tenant,
    long agents,
    long unread,
    long leased,
    Instant oldestUnreadAt,
    long heldRunnerMillisLastMinute) {}
