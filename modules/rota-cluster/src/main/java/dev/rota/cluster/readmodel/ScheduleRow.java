package dev.rota.cluster.readmodel;

import dev.rota.core.scheduling.AgentSchedule;

/**
 * One agent of {@code agent_schedule}, with the sequence number of the agent's last event it
 * reflects, so a coordinator loading it can ignore pushed changes that are not newer.
 */
public record ScheduleRow(AgentSchedule schedule, long seqNr) {}
