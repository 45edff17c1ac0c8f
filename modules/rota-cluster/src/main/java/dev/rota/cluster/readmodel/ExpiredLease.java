package dev.rota.cluster.readmodel;

import java.time.Instant;

/** A lease the read model shows past its expiry: its entity should expire it. */
public record ExpiredLease(String agentId, String leaseId, Instant expiresAt) {}
