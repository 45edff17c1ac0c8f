package dev.rota.faults.harness;

import dev.rota.faults.history.Event.Fault;
import dev.rota.faults.history.Event.Placement;
import dev.rota.faults.history.History;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.OptionalInt;

/**
 * The steps a {@link FaultRun} takes on its nodes, each recorded in the run's {@link History}: a
 * fault's phases ({@link Fault}), where the agents are just before it ({@link Placement}), a downed
 * node's exit, and a node's (or every node's) restart, recorded as a fault of its own.
 */
final class FaultSteps {
  private FaultSteps() {}

  /**
   * Waits for a node the others downed (frozen, or cut off) to exit, 30 s at most, and ends it if
   * it did not; its status is recorded.
   */
  static String awaitDowned(History history, FaultKind kind, NodeProcess node) {
    OptionalInt status = node.awaitExit(Duration.ofSeconds(30));
    String exitStatus = exit(status);
    fault(history, kind.label(), Fault.EXITED, node.index(), exitStatus);
    if (status.isEmpty()) {
      node.destroy();
    }
    return exitStatus;
  }

  /** Records which node hosts which agent, just before a fault. */
  static void placement(History history, FaultCluster cluster, Workload workload) {
    long now = System.currentTimeMillis();
    cluster
        .placement(workload.agents())
        .forEach((index, agents) -> history.add(new Placement(index, agents, now)));
  }

  /**
   * Starts every node that is not running at once (no cluster is left to join: the first seed forms
   * it) and waits until each sees three members Up.
   */
  static void restartAll(History history, FaultCluster cluster) {
    List<NodeProcess> stopped = cluster.nodes().stream().filter(n -> !n.alive()).toList();
    String which = String.join(",", stopped.stream().map(n -> "node " + n.index()).toList());
    // One restart for all (node 0: every agent waits for it), so its window runs to the end.
    fault(history, "restart", Fault.INJECTED, 0, which);
    stopped.forEach(NodeProcess::start);
    for (NodeProcess node : cluster.nodes()) {
      cluster.awaitReady(node, 3, false);
      cluster.route(node);
    }
    fault(history, "restart", Fault.HEALED, 0, which);
  }

  /**
   * Starts a node that was killed or exited again, and routes to it once ready; its rejoining is
   * recorded as a fault of its own ("restart"), so that the rebalancing it causes is not counted in
   * the window of the fault before.
   */
  static void restart(History history, FaultCluster cluster, NodeProcess node) {
    fault(history, "restart", Fault.INJECTED, node.index(), "");
    node.start();
    cluster.awaitReady(node);
    cluster.route(node);
    fault(history, "restart", Fault.HEALED, node.index(), "");
  }

  /**
   * Every node in turn, the last first: SIGTERM (a graceful leave through CoordinatedShutdown),
   * wait for it to exit, start it again ({@code nextJar} not null: from that jar and {@code
   * nextConfig} instead), wait until it is ready and sees every node Up, route to it, then {@code
   * dwell} before the next. Each node's steps are recorded as a fault of kind {@code step}; returns
   * the exit statuses.
   */
  static String roll(
      History history,
      FaultCluster cluster,
      String step,
      Path nextJar,
      Path nextConfig,
      Duration dwell) {
    StringBuilder statuses = new StringBuilder();
    for (int i = cluster.nodes().size(); i >= 1; i--) {
      NodeProcess each = cluster.node(i);
      fault(history, step, Fault.INJECTED, i, "");
      cluster.unroute(each);
      each.terminate();
      String status = exit(each.awaitExit(Duration.ofSeconds(60)));
      statuses.append(statuses.length() == 0 ? "" : ",").append(status);
      fault(history, step, Fault.EXITED, i, status);
      if (each.alive()) {
        each.destroy();
      }
      if (nextJar != null) {
        each.runFrom(nextJar, nextConfig);
      }
      each.start();
      cluster.awaitReady(each);
      cluster.route(each);
      fault(history, step, Fault.HEALED, i, nextJar == null ? "" : "from " + nextJar);
      System.out.printf("[faults] %s of node %d done: exit %s%n", step, i, status);
      FaultCluster.sleep(dwell);
    }
    return statuses.toString();
  }

  static void fault(History history, String kind, String phase, int node, String detail) {
    history.add(new Fault(kind, phase, node, System.currentTimeMillis(), detail));
  }

  static String exit(OptionalInt status) {
    return status.isPresent() ? Integer.toString(status.getAsInt()) : "still running";
  }
}
