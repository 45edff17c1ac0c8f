package dev.rota.core.model;

import java.time.Instant;

/**
 * Which schedule a scheduled turn serves, and the fire it answers: the latest fire at or before the
 * grant. Fires missed before it (the cluster was down, the agent paused or busy) are served by the
 * same turn.
 */
public record ScheduleFire(String name, Instant firedAt) {}
