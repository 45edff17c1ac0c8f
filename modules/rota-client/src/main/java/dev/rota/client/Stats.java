package dev.rota.client;

/** The answer of {@code GET /admin/stats}; docs/api.md explains each figure. */
public record Stats(
    boolean paused,
    Agents agents,
    Inbox inbox,
    Activations activations,
    Latency latency,
    Fairness fairness,
    Runners runners,
    long deadLetters,
    Cluster cluster) {

  public record Agents(long registered, long withInbox, long leased, long paused) {}

  public record Inbox(long unread, long oldestUnreadAgeSeconds) {}

  public record Activations(
      long inbox,
      long scheduled,
      long exploration,
      long completed,
      long failed,
      long expired,
      double perSecond1m) {}

  public record Latency(
      double claimMsP50, double claimMsP99, double inboxWaitMsP50, double inboxWaitMsP99) {}

  public record Fairness(long maxStalenessSeconds, long idealIntervalSeconds) {}

  public record Runners(long active, long busy, long desired) {}

  public record Cluster(int nodes, int partitions) {}
}
