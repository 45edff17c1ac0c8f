package dev.rota.bench.system;

import dev.rota.core.model.ActivationKind;

/** A completed activation and how many notifications it marked read. */
public record Completion(
    String agentId, ActivationKind kind, int notifications, long completedAtMicros) {}
