package dev.rota.http.api;

import java.time.Instant;

/** The answer to a heartbeat: the lease now runs until {@code expiresAt}. */
public record LeaseExtended(Instant expiresAt) {}
