package dev.rota.cluster.readmodel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.cluster.assign.PartitionLoader.Versioned;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class JdbcPartitionLoaderTest {

  /** Each query waits until the test releases it; records which partition started when. */
  private final List<Integer> started = new ArrayList<>();

  private final List<CompletableFuture<List<Versioned>>> releases = new ArrayList<>();
  private final ExecutorService blocking = Executors.newCachedThreadPool();
  private final JdbcPartitionLoader loader = new JdbcPartitionLoader(this::query, blocking);

  private List<Versioned> query(int partition) {
    CompletableFuture<List<Versioned>> release = new CompletableFuture<>();
    synchronized (this) {
      started.add(partition);
      releases.add(release);
      notifyAll();
    }
    return release.join();
  }

  private synchronized void awaitStarted(int loads) throws InterruptedException {
    long deadline = System.currentTimeMillis() + 5_000;
    while (started.size() < loads && System.currentTimeMillis() < deadline) {
      wait(100);
    }
    assertEquals(loads, started.size(), "loads started: " + started);
  }

  private synchronized void release(int load) {
    releases.get(load).complete(List.of());
  }

  @AfterEach
  void stop() {
    releases.forEach(r -> r.complete(List.of()));
    blocking.shutdownNow();
  }

  @Test
  void askingWhileAPartitionLoadsQueuesOneLoadAfterItThatLaterAsksShare() throws Exception {
    CompletionStage<List<Versioned>> first = loader.load(3);
    awaitStarted(1);
    CompletionStage<List<Versioned>> second = loader.load(3);
    CompletionStage<List<Versioned>> third = loader.load(3);
    assertSame(second, third, "asked while the same next load is pending: shared");
    Thread.sleep(100); // time for a second load to start, if the loader wrongly started one
    assertEquals(1, started.size(), "never two loads of one partition at once");

    release(0);
    first.toCompletableFuture().get(5, TimeUnit.SECONDS);
    awaitStarted(2);
    assertFalse(second.toCompletableFuture().isDone(), "the queued load starts after the first");
    release(1);
    second.toCompletableFuture().get(5, TimeUnit.SECONDS);

    CompletionStage<List<Versioned>> later = loader.load(3);
    awaitStarted(3);
    release(2);
    later.toCompletableFuture().get(5, TimeUnit.SECONDS);
    assertEquals(List.of(3, 3, 3), started);
  }

  @Test
  void partitionsLoadAtTheSameTime() throws Exception {
    CompletionStage<List<Versioned>> a = loader.load(0);
    CompletionStage<List<Versioned>> b = loader.load(1);
    awaitStarted(2);
    release(0);
    release(1);
    a.toCompletableFuture().get(5, TimeUnit.SECONDS);
    b.toCompletableFuture().get(5, TimeUnit.SECONDS);
    assertTrue(started.containsAll(List.of(0, 1)));
  }

  @Test
  void aFailedLoadFailsOnlyItsAskersAndTheNextOneRuns() throws Exception {
    CompletionStage<List<Versioned>> first = loader.load(2);
    awaitStarted(1);
    CompletionStage<List<Versioned>> second = loader.load(2);
    releases.get(0).completeExceptionally(new IllegalStateException("database down"));
    assertTrue(
        first
            .toCompletableFuture()
            .handle((rows, failure) -> failure != null)
            .get(5, TimeUnit.SECONDS));
    awaitStarted(2);
    release(1);
    assertEquals(List.of(), second.toCompletableFuture().get(5, TimeUnit.SECONDS));
  }
}
