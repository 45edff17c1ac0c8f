package dev.rota.cluster.readmodel;

import dev.rota.cluster.assign.PartitionLoader;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.function.IntFunction;

/**
 * Loads partitions from {@code agent_schedule} on a blocking executor, at most one load of a
 * partition at a time. A coordinator asks again 1, 3 and 10 s after it starts and every
 * reconciliation; with a million agents one load takes seconds on a busy node, so those requests
 * overlapped the first load and each other and multiplied the start-up work. A request made while a
 * load of the same partition runs gets the next load, started when that one ends (so it still sees
 * every row committed before it asked); requests made meanwhile share that next load.
 */
public final class JdbcPartitionLoader implements PartitionLoader {

  private final IntFunction<List<Versioned>> query;
  private final Executor blocking;
  private final Map<Integer, Loads> loads = new HashMap<>();

  public JdbcPartitionLoader(ReadModel readModel, Executor blocking) {
    this(
        partition ->
            readModel.loadPartition(partition).stream()
                .map(row -> new Versioned(row.schedule(), row.seqNr()))
                .toList(),
        blocking);
  }

  /** With any query in place of the read model's (tests). */
  JdbcPartitionLoader(IntFunction<List<Versioned>> query, Executor blocking) {
    this.query = query;
    this.blocking = blocking;
  }

  /** The load running for one partition, and the one that will start after it, if asked for. */
  private static final class Loads {
    CompletableFuture<List<Versioned>> running;
    CompletableFuture<List<Versioned>> next;
  }

  @Override
  public CompletionStage<List<Versioned>> load(int partition) {
    CompletableFuture<List<Versioned>> started;
    synchronized (loads) {
      Loads l = loads.computeIfAbsent(partition, p -> new Loads());
      if (l.running != null) {
        if (l.next == null) {
          l.next = new CompletableFuture<>();
        }
        return l.next;
      }
      started = start(partition);
      l.running = started;
    }
    // Outside the lock: a load that is already done runs this at once, on this thread.
    started.whenComplete((rows, failure) -> finished(partition));
    return started;
  }

  private CompletableFuture<List<Versioned>> start(int partition) {
    return CompletableFuture.supplyAsync(() -> query.apply(partition), blocking);
  }

  private void finished(int partition) {
    CompletableFuture<List<Versioned>> waiting;
    CompletableFuture<List<Versioned>> next;
    synchronized (loads) {
      Loads l = loads.get(partition);
      waiting = l.next;
      l.next = null;
      if (waiting == null) {
        l.running = null;
        return;
      }
      next = start(partition);
      l.running = next;
    }
    next.whenComplete(
        (rows, failure) -> {
          if (failure != null) {
            waiting.completeExceptionally(failure);
          } else {
            waiting.complete(rows);
          }
          finished(partition);
        });
  }
}
