package dev.rota.http.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.time.Instant;

/**
 * The answer of {@code GET /admin/stats}. Agent, inbox, activation and dead-letter figures come
 * from the read model (cluster-wide, written with the events); latency and {@code perSecond1m} are
 * this node's meters; runners are what the nodes' dispatchers and pools report; storage is what the
 * journal's maintenance saw at its last run, left out while there is none to tell (decision 134).
 */
public record AdminStats(
    boolean paused,
    Agents agents,
    Inbox inbox,
    Activations activations,
    Latency latency,
    Fairness fairness,
    Runners runners,
    long deadLetters,
    Cluster cluster,
    ReadModel readModel,
    @JsonInclude(JsonInclude.Include.NON_NULL) Storage storage) {

  public record Agents(long registered, long withInbox, long leased, long paused) {}

  public record Inbox(long unread, long oldestUnreadAgeSeconds) {}

  /**
   * @param interrupted turns that new input ended ({@code newInput: interrupt})
   * @param perSecond1m leases granted on this node over the last minute, per second
   */
  public record Activations(
      long inbox,
      long scheduled,
      long exploration,
      long completed,
      long failed,
      long expired,
      long interrupted,
      double perSecond1m) {}

  /** Milliseconds, over this node's recent claims. */
  public record Latency(
      double claimMsP50, double claimMsP99, double inboxWaitMsP50, double inboxWaitMsP99) {}

  /**
   * @param maxStalenessSeconds how long the stalest agent has gone without an activation
   * @param idealIntervalSeconds N·T/R: registered agents times the mean activation duration over
   *     active runners, the interval every agent would get if runners served them in turn; 0 while
   *     there is no runner or no activation to measure
   * @param meanActivationSeconds T, the mean activation this node's agents measured
   * @param targetStalenessSeconds the request's {@code targetStalenessSeconds}, else {@code
   *     rota.pools.target-staleness}
   * @param runnersForTargetStaleness N·T/S rounded up: runners every registered agent needs for a
   *     turn within that target; 0 while T is unknown
   */
  public record Fairness(
      long maxStalenessSeconds,
      long idealIntervalSeconds,
      double meanActivationSeconds,
      long targetStalenessSeconds,
      long runnersForTargetStaleness) {}

  /**
   * @param active runners that asked for work in the last minute or hold a lease
   * @param busy runners holding a lease
   * @param desired the pool scaler's desired runners summed over its pools (GET /admin/pools);
   *     while the scaler has not answered, the in-cluster pools' sizes plus the active external
   *     runners
   */
  public record Runners(long active, long busy, long desired) {}

  /**
   * @param skippedEvents events the read model could not hold (a value a column cannot hold):
   *     skipped so that their partition keeps moving, logged at ERROR and listed in the table
   *     {@code rota_skipped_event}; anything but 0 needs an operator's look
   */
  public record ReadModel(long skippedEvents) {}

  /**
   * @param nodes cluster members that are up
   */
  public record Cluster(int nodes, int partitions) {}

  /**
   * The journal's storage and retention (decision 124), sampled after the last good run of the
   * journal's maintenance: at most {@code rota.journal.maintenance-interval} old.
   *
   * @param journalRows events in the journal; on PostgreSQL the planner's estimate
   * @param journalBytes the journal's size on disk with its indexes; null on H2
   * @param oldestEventAgeSeconds how old the oldest event left was when sampled
   * @param retentionSeconds {@code rota.journal.retention}
   * @param readModelDeadTuples the read model's dead tuples waiting for vacuum; null on H2
   */
  public record Storage(
      long journalRows,
      Long journalBytes,
      long oldestEventAgeSeconds,
      long retentionSeconds,
      Long readModelDeadTuples,
      LastRun lastRun) {}

  /**
   * @param removedBytes on PostgreSQL the dropped partitions' size on disk, on H2 the removed
   *     events' payloads
   */
  public record LastRun(Instant endedAt, long removedRows, long removedBytes) {}
}
