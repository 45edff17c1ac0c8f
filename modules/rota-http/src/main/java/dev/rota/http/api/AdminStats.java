package dev.rota.http.api;

/**
 * The answer of {@code GET /admin/stats}. Agent, inbox, activation and dead-letter figures come
 * from the read model (cluster-wide, written with the events); latency and {@code perSecond1m} are
 * this node's meters; runners are what the nodes' dispatchers and pools report.
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
    ReadModel readModel) {

  public record Agents(long registered, long withInbox, long leased, long paused) {}

  public record Inbox(long unread, long oldestUnreadAgeSeconds) {}

  /**
   * @param perSecond1m leases granted on this node over the last minute, per second
   */
  public record Activations(
      long inbox,
      long scheduled,
      long exploration,
      long completed,
      long failed,
      long expired,
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
}
