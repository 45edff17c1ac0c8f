package dev.rota.bench.system;

/**
 * What a trial will ask of a system, told up front so a system can size itself (pools, partitions).
 * {@code workload} is a label such as {@code burn-down} or {@code backlog-20000}.
 */
public record TrialShape(String workload, int agents, long notifications, RunnerSpec runners) {}
