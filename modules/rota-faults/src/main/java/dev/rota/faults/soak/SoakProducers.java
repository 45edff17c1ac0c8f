package dev.rota.faults.soak;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.rota.client.Notification;
import dev.rota.client.NotifyResult;
import dev.rota.client.RotaClient;
import dev.rota.client.RotaException;
import dev.rota.faults.history.Event.Outcome;
import dev.rota.faults.history.Event.Published;
import dev.rota.faults.history.History;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * The soak's producers: a few threads, each sending its share of the rate to the agents in turn
 * ({@code producer p} serves agents p, p + n, ...), with a key of its own per notification and the
 * same key again until it is acknowledged, every attempt recorded as the fault workload records it.
 * Paced against a schedule, not a sleep after each send, so that a slow answer is made up for
 * (never more than one interval's worth at once).
 */
final class SoakProducers {
  private final History history;
  private final List<String> agents;
  private final RotaClient client;
  private final int node;
  private final List<Thread> threads = new ArrayList<>();
  private final AtomicLong acknowledged = new AtomicLong();
  private volatile boolean running;

  SoakProducers(History history, List<String> agents, URI api, int node) {
    this.history = history;
    this.agents = agents;
    this.node = node;
    this.client =
        RotaClient.builder(api)
            .connectTimeout(Duration.ofSeconds(1))
            .readTimeout(Duration.ofSeconds(5))
            .retries(0)
            .build();
  }

  void start(int producers, int rate) {
    running = true;
    long intervalNanos = Duration.ofSeconds(1).toNanos() * producers / Math.max(1, rate);
    for (int p = 0; p < producers; p++) {
      int first = p;
      Thread thread =
          new Thread(() -> produce(first, producers, intervalNanos), "soak-producer-" + p);
      thread.setDaemon(true);
      threads.add(thread);
      thread.start();
    }
  }

  long acknowledged() {
    return acknowledged.get();
  }

  void stop() {
    running = false;
    for (Thread thread : threads) {
      try {
        thread.join(30_000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private void produce(int first, int step, long intervalNanos) {
    long next = System.nanoTime() + intervalNanos * first / step;
    int sequence = 0;
    int index = first;
    while (running) {
      long wait = next - System.nanoTime();
      if (wait > 0) {
        LockSupport.parkNanos(wait);
      }
      next = Math.max(next + intervalNanos, System.nanoTime() - intervalNanos);
      String agent = agents.get(index);
      index = index + step < agents.size() ? index + step : first % step;
      String key = agent + "-" + first + "-" + sequence++;
      publishUntilAcknowledged(agent, key);
    }
  }

  private void publishUntilAcknowledged(String agent, String key) {
    Notification notification =
        Notification.of("soak", JsonNodeFactory.instance.objectNode().put("k", key)).dedupeKey(key);
    while (running) {
      long start = System.currentTimeMillis();
      Outcome outcome;
      String id = null;
      String detail;
      try {
        NotifyResult result = client.notify(agent, notification);
        outcome = Outcome.OK;
        id = result.notificationId();
        detail = result.duplicate() ? "202 " + Published.DUPLICATE : "202";
      } catch (RotaException e) {
        outcome = Outcome.FAILED;
        detail =
            e instanceof RotaException.Connection ? "Connection" : Integer.toString(e.status());
      }
      history.add(
          new Published(agent, key, node, start, System.currentTimeMillis(), outcome, id, detail));
      if (outcome == Outcome.OK) {
        acknowledged.incrementAndGet();
        return;
      }
      LockSupport.parkNanos(Duration.ofMillis(200).toNanos());
    }
  }

  void close() {
    client.close();
  }
}
