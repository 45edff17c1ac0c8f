package dev.rota.cluster.readmodel;

import java.time.Instant;

/**
 * One tenant's agents in the read model: how many, their unread notifications (and the oldest) and
 * the leases they hold. Runner time is not counted here: the coordinators count it, and a
 * dispatcher's {@link dev.rota.core.tenant.TenantShares} is the one place that adds it up.
 *
 * @param oldestUnreadAt null when no agent of the tenant has unread notifications
 */
public record TenantRow(
    String tenant, long agents, long unread, long leased, Instant oldestUnreadAt) {}
