package dev.rota.faults.harness;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.rota.client.Notification;
import dev.rota.client.RotaException;
import dev.rota.faults.history.Event.Outcome;
import dev.rota.faults.history.Event.Published;
import dev.rota.faults.history.History;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * The {@link Workload}'s stray producer: while a node is cut off from the others (or is the only
 * survivor), a thread posts through that node only, whatever its state, one notification after
 * another to the agents in turn, each with a key of its own ({@code stray-<node>-<n>}) and no
 * retry. What it acknowledges must not be lost like any other notification; its failures are
 * recorded too, and {@link RunNotes#answers} reads them back.
 */
final class WorkloadStray {
  private final History history;
  private final List<String> agents;
  private final Function<NodeProcess, NodeClients> clients;
  private final List<Thread> threads = new ArrayList<>();
  private volatile boolean straying;

  WorkloadStray(History history, List<String> agents, Function<NodeProcess, NodeClients> clients) {
    this.history = history;
    this.agents = agents;
    this.clients = clients;
  }

  void start(NodeProcess node) {
    straying = true;
    Thread thread = new Thread(() -> stray(node), "stray-" + node.index());
    thread.setDaemon(true);
    threads.add(thread);
    thread.start();
  }

  void stop() {
    straying = false;
    Workload.join(threads);
    threads.clear();
  }

  private void stray(NodeProcess node) {
    int sequence = 0;
    while (straying) {
      String agent = agents.get(sequence % agents.size());
      String key = "stray-" + node.index() + "-" + sequence++;
      Notification notification =
          Notification.of("fault", JsonNodeFactory.instance.objectNode().put("k", key))
              .dedupeKey(key);
      long start = System.currentTimeMillis();
      Outcome outcome;
      String id = null;
      String detail;
      try {
        id = clients.apply(node).patient.notify(agent, notification).notificationId();
        outcome = Outcome.OK;
        detail = "202";
      } catch (RotaException.TurnInProgress e) {
        outcome = Outcome.REJECTED;
        detail = "409 turn_in_progress";
      } catch (RotaException e) {
        outcome = Outcome.FAILED;
        detail = Workload.detail(e);
      }
      history.add(
          new Published(
              agent, key, node.index(), start, System.currentTimeMillis(), outcome, id, detail));
      FaultCluster.sleep(Duration.ofMillis(100));
    }
  }
}
