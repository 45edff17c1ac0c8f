package dev.rota.bench.system;

import java.util.Arrays;

/**
 * An unread backlog: {@code unreadPerAgent[i]} notifications for agent {@code AgentIds.id(i)}.
 * Every system gets the identical array for the same workload.
 */
public record InboxSeed(int[] unreadPerAgent) {

  public static InboxSeed empty() {
    return new InboxSeed(new int[0]);
  }

  public long total() {
    return Arrays.stream(unreadPerAgent).asLongStream().sum();
  }

  public int agentsWithInbox() {
    return (int) Arrays.stream(unreadPerAgent).filter(n -> n > 0).count();
  }

  /**
   * {@code total} notifications over the first {@code hotAgents} agents, agent of rank r weighted
   * {@code 1 / (r + 1)^skew}: skew 0 is even, 0.5 gives the busiest agent about 30 times the
   * median's share, 1 is Zipf.
   */
  public static InboxSeed skewed(long total, int hotAgents, double skew) {
    double[] weights = new double[hotAgents];
    double sum = 0;
    for (int r = 0; r < hotAgents; r++) {
      weights[r] = 1.0 / Math.pow(r + 1, skew);
      sum += weights[r];
    }
    int[] counts = new int[hotAgents];
    long assigned = 0;
    for (int r = 0; r < hotAgents; r++) {
      counts[r] = (int) Math.floor(total * weights[r] / sum);
      assigned += counts[r];
    }
    // Hand the rounding remainder out one by one from the top so the total is exact.
    for (int r = 0; assigned < total; r = (r + 1) % hotAgents) {
      counts[r]++;
      assigned++;
    }
    return new InboxSeed(counts);
  }
}
