package dev.rota.faults.harness;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.rota.client.Notification;
import dev.rota.client.NotifyResult;
import dev.rota.client.RotaException;
import dev.rota.faults.history.Event.Outcome;
import dev.rota.faults.history.Event.Published;
import dev.rota.faults.history.History;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.Function;

/**
 * The loaded variant's closed-loop producers, besides the {@link Workload}'s one per agent: each
 * publishes one notification after another (a key of its own, {@code load-<thread>-<n>}) to the
 * agents in turn, through a random routable node, and waits for the node's answer as an SDK client
 * with its default timeout would (up to 10 s: a request for an agent whose node is gone is answered
 * 503 after the node's ask timeout); an unacknowledged one is retried with its key on any node
 * after the answer's Retry-After (at most 5 s) or 200 ms, as the SDK's own retries wait. They keep
 * the nodes busy; their attempts are in the history like every other publish (what they acknowledge
 * must not be lost), and an acknowledgement of theirs is one of the agent's, so it counts in its
 * window too.
 */
final class WorkloadPressure {
  /** The longest Retry-After honoured (the SDK's longest back-off). */
  private static final Duration RETRY_AFTER_CAP = Duration.ofSeconds(5);

  private static final Duration PAUSE = Duration.ofMillis(200);

  private final FaultCluster cluster;
  private final History history;
  private final List<String> agents;
  private final Function<NodeProcess, NodeClients> clients;
  private final BooleanSupplier producing;

  WorkloadPressure(
      FaultCluster cluster,
      History history,
      List<String> agents,
      Function<NodeProcess, NodeClients> clients,
      BooleanSupplier producing) {
    this.cluster = cluster;
    this.history = history;
    this.agents = agents;
    this.clients = clients;
    this.producing = producing;
  }

  /** Starts {@code threads} producers; they end when {@code producing} turns false. */
  List<Thread> start(int threads) {
    List<Thread> started = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      int thread = t;
      Thread producer = new Thread(() -> press(thread, threads), "pressure-" + t);
      producer.setDaemon(true);
      started.add(producer);
      producer.start();
    }
    return started;
  }

  private void press(int thread, int threads) {
    int sequence = 0;
    // The threads walk the agents in the same order from different starting points.
    int next = thread * agents.size() / Math.max(1, threads);
    while (producing.getAsBoolean()) {
      String agent = agents.get(next++ % agents.size());
      String key = "load-" + thread + "-" + sequence++;
      Notification notification =
          Notification.of("fault", JsonNodeFactory.instance.objectNode().put("k", key))
              .dedupeKey(key);
      boolean acknowledged = false;
      while (!acknowledged && producing.getAsBoolean()) {
        NodeProcess node = cluster.pick();
        if (node == null) {
          FaultCluster.sleep(PAUSE);
          continue;
        }
        long start = System.currentTimeMillis();
        Outcome outcome;
        String id = null;
        String detail;
        Duration pause = PAUSE;
        try {
          NotifyResult result = clients.apply(node).patient.notify(agent, notification);
          outcome = Outcome.OK;
          id = result.notificationId();
          detail =
              "202"
                  + (result.steered() ? " " + Published.STEERED : "")
                  + (result.interrupted() ? " " + Published.INTERRUPTED : "");
        } catch (RotaException e) {
          outcome = Outcome.FAILED;
          detail = Workload.detail(e);
          pause =
              e.retryAfter()
                  .map(d -> d.compareTo(RETRY_AFTER_CAP) > 0 ? RETRY_AFTER_CAP : d)
                  .orElse(PAUSE);
        }
        history.add(
            new Published(
                agent, key, node.index(), start, System.currentTimeMillis(), outcome, id, detail));
        acknowledged = outcome == Outcome.OK;
        if (!acknowledged) {
          FaultCluster.sleep(pause);
        }
      }
    }
  }
}
