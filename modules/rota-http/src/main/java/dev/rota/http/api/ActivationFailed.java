package dev.rota.http.api;

import java.time.Instant;

/** The answer to a failure report: what was applied, and when. */
public record ActivationFailed(String action, Instant failedAt) {}
