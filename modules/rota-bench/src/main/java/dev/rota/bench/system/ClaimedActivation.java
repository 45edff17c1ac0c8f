package dev.rota.bench.system;

import dev.rota.core.model.ActivationKind;

/**
 * A claimed activation. {@code tokens} are the tokens of the published notifications it carries
 * (seeded ones have none); {@code notifications} counts all it carries. Times come from {@link
 * BenchClock}, so a system in another process reports its own clock reading in the same unit.
 */
public record ClaimedActivation(
    String agentId, ActivationKind kind, int notifications, long[] tokens, long claimedAtMicros) {

  public static final long[] NO_TOKENS = new long[0];
}
