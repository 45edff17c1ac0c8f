package dev.rota.faults.harness;

import dev.rota.faults.check.HistoryChecker;
import dev.rota.faults.check.Verdict;
import dev.rota.faults.history.Event.Fault;
import dev.rota.faults.history.History;
import java.nio.file.Path;
import java.time.Duration;
import java.util.OptionalInt;

/**
 * One run of the suite: PostgreSQL and three nodes started fresh, the workload running, one fault
 * injected (and healed), the producers stopped, the inboxes drained, the history written to {@code
 * history.jsonl} and checked.
 */
public final class FaultRun {
  /** Settings of a run; the defaults are the suite's. */
  public record Settings(
      Path jar,
      Path config,
      int agents,
      int runners,
      Duration warmUp,
      Duration observe,
      Duration freeze,
      Duration settle,
      Duration drain,
      boolean rejoin) {
    public static Settings defaults(Path jar, Path config) {
      return new Settings(
          jar,
          config,
          50,
          6,
          Duration.ofSeconds(10),
          Duration.ofSeconds(20),
          Duration.ofSeconds(20),
          Duration.ofSeconds(8),
          Duration.ofSeconds(90),
          true);
    }

    /**
     * The default build's single run: shorter warm-up and settling, and the killed node is not
     * started again (the full suite covers rejoining), so that it stays within a few minutes.
     */
    public static Settings brief(Path jar, Path config) {
      return new Settings(
          jar,
          config,
          50,
          6,
          Duration.ofSeconds(5),
          Duration.ofSeconds(20),
          Duration.ofSeconds(20),
          Duration.ofSeconds(4),
          Duration.ofSeconds(90),
          false);
    }
  }

  /** The outcome of a run: what was checked, and facts the history cannot hold. */
  public record Result(
      FaultKind kind, int run, int node, Verdict verdict, String exitStatus, Path dir) {}

  private final Settings settings;

  public FaultRun(Settings settings) {
    this.settings = settings;
  }

  /**
   * Runs {@code kind} once; {@code run} numbers it and chooses the node it hits ({@code run % 3 +
   * 1}: the first run hits node 1, the oldest, which hosts the singletons).
   */
  public Result run(FaultKind kind, int run, Path dir) {
    History history = new History();
    int target = run % 3 + 1;
    String exitStatus = "";
    log(kind, run, "starting PostgreSQL and three nodes in " + dir);
    try (FaultPostgres db = FaultPostgres.start(dir.resolve("postgres"));
        FaultCluster cluster =
            FaultCluster.start(3, settings.jar(), settings.config(), db, dir.resolve("nodes"))) {
      Workload workload = new Workload(cluster, history, settings.agents(), settings.runners());
      workload.registerAgents();
      workload.start();
      log(kind, run, "workload running; warming up " + settings.warmUp().toSeconds() + " s");
      FaultCluster.sleep(settings.warmUp());
      NodeProcess node = cluster.node(target);
      switch (kind) {
        case KILL_9 -> {
          fault(history, kind.label(), Fault.INJECTED, target, "");
          cluster.unroute(node);
          node.kill9();
          exitStatus = exit(node.awaitExit(Duration.ofSeconds(10)));
          FaultCluster.sleep(settings.observe());
          if (settings.rejoin()) {
            restart(history, cluster, node);
          }
        }
        case SIGSTOP -> {
          fault(history, kind.label(), Fault.INJECTED, target, "");
          cluster.unroute(node);
          node.freeze();
          FaultCluster.sleep(settings.freeze());
          node.thaw();
          fault(history, kind.label(), Fault.HEALED, target, "SIGCONT");
          OptionalInt status = node.awaitExit(Duration.ofSeconds(30));
          exitStatus = exit(status);
          fault(history, kind.label(), Fault.EXITED, target, exitStatus);
          if (status.isEmpty()) {
            node.destroy();
          }
          restart(history, cluster, node);
        }
        case POSTGRES_RESTART -> {
          // The third run keeps PostgreSQL down for 15 s, the others for 3 s.
          Duration down = Duration.ofSeconds(run % 3 == 2 ? 15 : 3);
          fault(history, kind.label(), Fault.INJECTED, 0, "down " + down.toSeconds() + " s");
          db.stopImmediately();
          FaultCluster.sleep(down);
          db.startAgain();
          fault(history, kind.label(), Fault.HEALED, 0, "");
          FaultCluster.sleep(settings.observe());
        }
        case ROLLING_RESTART -> {
          StringBuilder statuses = new StringBuilder();
          for (int i = 3; i >= 1; i--) {
            NodeProcess each = cluster.node(i);
            fault(history, "sigterm", Fault.INJECTED, i, "");
            cluster.unroute(each);
            each.terminate();
            String status = exit(each.awaitExit(Duration.ofSeconds(60)));
            statuses.append(statuses.length() == 0 ? "" : ",").append(status);
            fault(history, "sigterm", Fault.EXITED, i, status);
            if (each.alive()) {
              each.destroy();
            }
            each.start();
            cluster.awaitReady(each);
            cluster.route(each);
            fault(history, "sigterm", Fault.HEALED, i, "");
            FaultCluster.sleep(Duration.ofSeconds(5));
          }
          exitStatus = statuses.toString();
        }
      }
      FaultCluster.sleep(settings.settle());
      log(kind, run, "stopping producers; draining");
      workload.stopProducers();
      boolean drained = workload.drain(settings.drain());
      workload.stopRunners();
      workload.recordFinalState();
      log(kind, run, drained ? "drained" : "NOT drained within " + settings.drain());
    }
    history.write(dir.resolve("history.jsonl"));
    Verdict verdict = HistoryChecker.check(history.events());
    return new Result(
        kind, run, kind == FaultKind.POSTGRES_RESTART ? 0 : target, verdict, exitStatus, dir);
  }

  /**
   * Starts a node that was killed or exited again, and routes to it once ready; its rejoining is
   * recorded as a fault of its own ("restart"), so that the rebalancing it causes is not counted in
   * the window of the fault before.
   */
  private static void restart(History history, FaultCluster cluster, NodeProcess node) {
    fault(history, "restart", Fault.INJECTED, node.index(), "");
    node.start();
    cluster.awaitReady(node);
    cluster.route(node);
    fault(history, "restart", Fault.HEALED, node.index(), "");
  }

  private static void fault(History history, String kind, String phase, int node, String detail) {
    history.add(new Fault(kind, phase, node, System.currentTimeMillis(), detail));
  }

  private static String exit(OptionalInt status) {
    return status.isPresent() ? Integer.toString(status.getAsInt()) : "still running";
  }

  private static void log(FaultKind kind, int run, String message) {
    System.out.printf("[faults] %s run %d: %s%n", kind.label(), run, message);
  }
}
