package dev.rota.http.api;

import java.time.Instant;

/** The answer to a completion: the carried notifications are read as of {@code completedAt}. */
public record ActivationCompleted(Instant completedAt) {}
