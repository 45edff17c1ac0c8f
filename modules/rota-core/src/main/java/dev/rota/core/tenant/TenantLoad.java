package dev.rota.core.tenant;

/**
 * One tenant's use of runners in one partition, as its coordinator publishes it with the heads
 * ({@link TenantRunnerTime#snapshot}). The counts are cumulative since the coordinator started, so
 * a dispatcher adds up what changed between two publications of the same coordinator.
 *
 * @param leased agents of the tenant leased now
 * @param inFlightMillis runner time the leases in flight have taken so far, at the publication
 * @param endedMillis runner time of the leases that ended, from grant to end
 * @param ended leases that ended
 * @param grants leases that started
 */
public record TenantLoad(
    int leased, long inFlightMillis, long endedMillis, long ended, long grants) {}
