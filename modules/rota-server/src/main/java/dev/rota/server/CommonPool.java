package dev.rota.server;

/**
 * Gives {@code ForkJoinPool.commonPool()} at least two threads. Where it has fewer — on a machine
 * with two cores it gets one — {@code CompletableFuture} runs every asynchronous callback on a
 * thread of its own, started for that one callback; Pekko's Java API hands answers to such
 * callbacks (every {@code ask}, every {@code pipeToSelf} of a stage Pekko returns), so a small
 * machine would start threads by the thousand per second. Rota's own hot paths avoid those
 * callbacks ({@code dev.rota.cluster.Asks}); this covers the rest (HTTP routes, libraries).
 *
 * <p>Takes effect only before anything has touched the common pool, so processes call it first
 * thing in {@code main}; an explicit {@code -Djava.util.concurrent.ForkJoinPool.common.parallelism}
 * wins.
 */
public final class CommonPool {
  static final String PARALLELISM = "java.util.concurrent.ForkJoinPool.common.parallelism";

  private CommonPool() {}

  public static void atLeastTwoThreads() {
    if (System.getProperty(PARALLELISM) == null
        && Runtime.getRuntime().availableProcessors() <= 2) {
      System.setProperty(PARALLELISM, "2");
    }
  }
}
