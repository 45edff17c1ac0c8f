package dev.rota.bench.system;

import dev.rota.core.model.RunnerMode;
import java.time.Duration;

/** How many runners, asking for what, and how long each activation takes (zero: a no-op). */
public record RunnerSpec(int runners, RunnerMode mode, Duration activationTime) {}
