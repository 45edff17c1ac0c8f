package dev.rota.cluster.rescue;

import java.time.Duration;
import java.time.Instant;

/**
 * The journal's last good maintenance run (decision 124) and the storage sampled after it ({@link
 * StorageSample}): the figures the storage gauges show on the singleton's node, kept by the
 * singleton so that the admin API of any node can ask for them ({@link
 * JournalMaintenance.GetStorage}, decision 134).
 *
 * @param endedAt when the run ended; the sample was taken just before
 * @param rowsRemoved events the run removed
 * @param bytesRemoved on PostgreSQL the dropped partitions' size on disk, on H2 the removed events'
 *     payloads
 * @param journalRows events in the journal; on PostgreSQL the planner's estimate
 * @param journalBytes the journal's size on disk with its indexes and TOAST; -1 on H2
 * @param oldestEventAge the age of the oldest event left, when sampled; zero for an empty journal
 * @param deadTuples the read model's dead tuples waiting for vacuum; -1 on H2
 * @param retention {@code rota.journal.retention}
 */
public record StorageReport(
    Instant endedAt,
    long rowsRemoved,
    long bytesRemoved,
    long journalRows,
    long journalBytes,
    Duration oldestEventAge,
    long deadTuples,
    Duration retention) {}
