package dev.rota.faults.harness;

import static dev.rota.faults.harness.FaultSteps.awaitDowned;
import static dev.rota.faults.harness.FaultSteps.exit;
import static dev.rota.faults.harness.FaultSteps.fault;
import static dev.rota.faults.harness.FaultSteps.placement;
import static dev.rota.faults.harness.FaultSteps.restart;
import static dev.rota.faults.harness.FaultSteps.restartAll;
import static dev.rota.faults.harness.FaultSteps.roll;

import dev.rota.faults.check.CallChecker;
import dev.rota.faults.check.CallVerdict;
import dev.rota.faults.check.CapChecker;
import dev.rota.faults.check.HistoryChecker;
import dev.rota.faults.check.NewInputCounts;
import dev.rota.faults.check.Verdict;
import dev.rota.faults.history.Event.ClockSkew;
import dev.rota.faults.history.Event.Fault;
import dev.rota.faults.history.History;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One run of the suite: PostgreSQL and three nodes started fresh, the workload running, one fault
 * injected (and healed), the producers stopped, the inboxes drained, the history written to {@code
 * history.jsonl} and checked.
 */
public final class FaultRun {
  private static final int FAST_NODE = 2;
  private static final int SLOW_NODE = 3;

  /**
   * Settings of a run; the defaults are the suite's.
   *
   * @param pressure closed-loop producers besides the one per agent; 0 in the usual runs
   */
  public record Settings(
      Path jar,
      Path config,
      int agents,
      int runners,
      int pressure,
      Duration warmUp,
      Duration observe,
      Optional<Duration> freeze,
      Duration settle,
      Duration drain,
      boolean rejoin) {
    public static Settings defaults(Path jar, Path config) {
      return new Settings(
          jar,
          config,
          50,
          6,
          0,
          Duration.ofSeconds(10),
          Duration.ofSeconds(20),
          Optional.empty(),
          Duration.ofSeconds(8),
          Duration.ofSeconds(90),
          true);
    }

    /**
     * The loaded variant: the usual runs plus {@code pressure} closed-loop producers ({@link
     * WorkloadPressure}) and twice the runners. Its agents queue new input: an interrupt by a
     * publish whose answer came too late for its producer (frequent under load) has no time in the
     * history, so the checker would count the next grant as an overlapping hold.
     */
    public static Settings loaded(Path jar, Path config, int pressure) {
      return new Settings(
          jar,
          config,
          50,
          12,
          pressure,
          Duration.ofSeconds(10),
          Duration.ofSeconds(20),
          Optional.empty(),
          Duration.ofSeconds(8),
          Duration.ofSeconds(90),
          true);
    }

    /**
     * The default build's runs: shorter warm-up, observation, freeze (12 s: still past the
     * resolver's decision, about 5 s) and settling, and a killed node is not started again (the
     * full suite covers rejoining), so that they stay within a few minutes.
     */
    public static Settings brief(Path jar, Path config) {
      return new Settings(
          jar,
          config,
          50,
          6,
          0,
          Duration.ofSeconds(5),
          Duration.ofSeconds(12),
          Optional.of(Duration.ofSeconds(12)),
          Duration.ofSeconds(4),
          Duration.ofSeconds(90),
          false);
    }
  }

  /**
   * The outcome of a run: what was checked, and facts the history cannot hold.
   *
   * @param note what this kind of fault adds (what an isolated or surviving node answered)
   * @param load the machine's 1-minute load average from when the nodes were up until the producers
   *     stopped, lowest–highest
   */
  public record Result(
      FaultKind kind,
      int run,
      int node,
      Verdict verdict,
      String exitStatus,
      String note,
      Path dir,
      CapChecker.Result caps,
      String load,
      NewInputCounts newInput,
      CallVerdict calls) {

    /** Every violation of the run: the history checker's, then the call checks'. */
    public List<String> violations() {
      List<String> all = new java.util.ArrayList<>(verdict.violations());
      if (calls != null) {
        all.addAll(calls.violations());
      }
      return all;
    }
  }

  private final Settings settings;

  /** The default tenant's max-concurrent on every node; null: none (the nodes' configuration). */
  private final Integer defaultTenantCap;

  /** The jar a rolling upgrade starts the nodes from; null: none given. */
  private final OldJar upgradeFrom;

  public FaultRun(Settings settings) {
    this(settings, null, null);
  }

  private FaultRun(Settings settings, Integer defaultTenantCap, OldJar upgradeFrom) {
    this.settings = settings;
    this.defaultTenantCap = defaultTenantCap;
    this.upgradeFrom = upgradeFrom;
  }

  /**
   * The same runs, a {@link FaultKind#ROLLING_UPGRADE} starting the nodes from {@code old} and
   * rolling them onto the settings' jar and configuration.
   */
  public FaultRun withUpgradeFrom(OldJar old) {
    return new FaultRun(settings, defaultTenantCap, old);
  }

  /**
   * The same runs with the default tenant (every agent of the workload) capped at {@code cap}
   * leases at once across the cluster; each run's history is then checked against the cap too
   * ({@link CapChecker}).
   */
  public FaultRun withDefaultTenantCap(int cap) {
    return new FaultRun(settings, cap, upgradeFrom);
  }

  /**
   * Runs {@code kind} once; {@code run} numbers it and chooses the node it hits ({@code run % 3 +
   * 1}: the first run hits node 1, the oldest, which hosts the singletons; for the clock skew, the
   * slow node 3 in even runs and the fast node 2 in odd ones).
   */
  public Result run(FaultKind kind, int run, Path dir) {
    History history = new History();
    int target =
        kind == FaultKind.CLOCK_SKEW ? (run % 2 == 0 ? SLOW_NODE : FAST_NODE) : run % 3 + 1;
    String exitStatus = "";
    String note = "";
    String load;
    log(kind, run, "starting PostgreSQL and three nodes in " + dir);
    NodeNetwork network = kind.partition() ? NodeNetwork.create(3) : null;
    Map<Integer, Duration> offsets =
        kind == FaultKind.CLOCK_SKEW
            ? Map.of(FAST_NODE, Duration.ofSeconds(30), SLOW_NODE, Duration.ofSeconds(-30))
            : Map.of();
    offsets.forEach(
        (node, offset) ->
            history.add(new ClockSkew(node, offset.toMillis(), System.currentTimeMillis())));
    if (kind.upgrades() && upgradeFrom == null) {
      throw new IllegalStateException(kind.label() + " needs the old jar: -Pupgrade-rolling");
    }
    // A rolling upgrade starts from the old jar with the configuration of its commit.
    Path firstJar = kind.upgrades() ? upgradeFrom.jar() : settings.jar();
    Path firstConfig = kind.upgrades() ? upgradeFrom.config() : settings.config();
    try (NodeNetwork ignored = network;
        FaultPostgres db = FaultPostgres.start(dir.resolve("postgres"), network != null);
        FaultCluster cluster =
            FaultCluster.start(
                3,
                firstJar,
                CappedConfig.of(firstConfig, defaultTenantCap, dir),
                db,
                dir.resolve("nodes"),
                new FaultCluster.Layout(network, offsets));
        LoadSampler sampler = new LoadSampler(dir)) {
      Workload workload = new Workload(cluster, history, settings.agents(), settings.runners());
      if (settings.pressure() == 0
          && "mixed".equals(System.getProperty("rota.faults.new-input", "queue"))) {
        workload.mixNewInput();
      }
      if (callsOn()) {
        workload.withCalls();
      }
      workload.registerAgents();
      if (kind == FaultKind.CLOCK_SKEW) {
        workload.longTurns();
      }
      workload.start();
      if (settings.pressure() > 0) {
        workload.startPressure(settings.pressure());
      }
      log(kind, run, "workload running; warming up " + settings.warmUp().toSeconds() + " s");
      FaultCluster.sleep(settings.warmUp());
      NodeProcess node = cluster.node(target);
      switch (kind) {
        case KILL_9, CLOCK_SKEW -> {
          placement(history, cluster, workload);
          fault(history, kind.label(), Fault.INJECTED, target, "");
          cluster.unroute(node);
          node.kill9();
          exitStatus = exit(node.awaitExit(Duration.ofSeconds(10)));
          FaultCluster.sleep(settings.observe());
          if (settings.rejoin()) {
            restart(history, cluster, node);
          }
        }
        case SIGSTOP_20S, SIGSTOP_60S, SIGSTOP_5MIN -> {
          Duration freeze = settings.freeze().orElse(kind.length());
          placement(history, cluster, workload);
          fault(history, kind.label(), Fault.INJECTED, target, freeze.toSeconds() + " s");
          cluster.unroute(node);
          node.freeze();
          FaultCluster.sleep(freeze);
          node.thaw();
          fault(history, kind.label(), Fault.HEALED, target, "SIGCONT");
          exitStatus = awaitDowned(history, kind, node);
          if (settings.rejoin()) {
            restart(history, cluster, node);
          }
        }
        case PARTITION, PARTITION_ONE_WAY -> {
          boolean symmetric = kind == FaultKind.PARTITION;
          placement(history, cluster, workload);
          long at = System.currentTimeMillis();
          fault(history, kind.label(), Fault.INJECTED, target, symmetric ? "both ways" : "one way");
          cluster.unroute(node);
          workload.startStray(node);
          network.isolate(target, symmetric);
          FaultCluster.sleep(kind.length());
          network.heal();
          fault(history, kind.label(), Fault.HEALED, target, "");
          workload.stopStray();
          note = "isolated node: " + RunNotes.answers(history, target, at);
          exitStatus = awaitDowned(history, kind, node);
          restart(history, cluster, node);
        }
        case TWO_NODES_LOST -> {
          long at = System.currentTimeMillis();
          placement(history, cluster, workload);
          // Node 0: every agent is hit (the survivor alone may not write).
          fault(history, kind.label(), Fault.INJECTED, 0, "survivor node " + target);
          List<NodeProcess> lost =
              cluster.nodes().stream().filter(n -> n.index() != target).toList();
          lost.forEach(cluster::unroute);
          lost.forEach(NodeProcess::kill9);
          workload.startStray(node);
          FaultCluster.sleep(kind.length());
          workload.stopStray();
          note = "survivor: " + RunNotes.answers(history, target, at);
          exitStatus = exit(node.awaitExit(Duration.ZERO));
          fault(history, kind.label(), Fault.HEALED, 0, "");
          restartAll(history, cluster);
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
        case ROLLING_RESTART ->
            exitStatus = roll(history, cluster, "sigterm", null, null, Duration.ofSeconds(5));
        case ROLLING_UPGRADE -> {
          // Old and new nodes serve together for an observation time after each node's upgrade.
          exitStatus =
              roll(
                  history,
                  cluster,
                  "upgrade",
                  settings.jar(),
                  settings.config(),
                  settings.observe());
          log(kind, run, "every node runs the new jar; load goes on " + settings.observe());
          FaultCluster.sleep(settings.observe());
        }
      }
      FaultCluster.sleep(settings.settle());
      int floor = Integer.getInteger("rota.faults.min-acknowledged", 0);
      if (!workload.awaitAcknowledged(floor, Duration.ofMinutes(5))) {
        log(kind, run, "fewer than " + floor + " notifications acknowledged within 5 min more");
      }
      log(kind, run, "stopping producers; draining");
      workload.stopProducers();
      load = sampler.stop();
      workload.shortTurns();
      boolean drained = workload.drain(settings.drain());
      workload.stopRunners();
      workload.recordFinalState();
      log(kind, run, drained ? "drained" : "NOT drained within " + settings.drain());
      if (kind.upgrades()) {
        note =
            "completions an old node refused for inputSeen, sent again without it: "
                + workload.inputSeenRefused();
        log(kind, run, note);
      }
    }
    history.write(dir.resolve("history.jsonl"));
    Verdict verdict = HistoryChecker.check(history.events());
    if (kind == FaultKind.TWO_NODES_LOST) {
      note += "; " + RunNotes.back(verdict);
    }
    int node = kind == FaultKind.POSTGRES_RESTART ? 0 : target;
    CapChecker.Result caps =
        defaultTenantCap == null
            ? null
            : CapChecker.check(
                history.events(), Map.of(CapChecker.DEFAULT_TENANT, defaultTenantCap));
    if (caps != null) {
      log(
          kind,
          run,
          "leases held at once, most: " + caps.maxHeld() + "; excesses: " + caps.excesses().size());
    }
    NewInputCounts newInput = NewInputCounts.of(history.events());
    if (newInput.any()) {
      log(kind, run, "new input: " + newInput);
    }
    CallVerdict calls = callsOn() ? CallChecker.check(history.events()) : null;
    if (calls != null) {
      log(
          kind,
          run,
          String.format(
              "calls: sends %d, calls %d, replies %s, groups %d (delivered whole %d), violations %d",
              calls.sends(),
              calls.calls(),
              calls.replies(),
              calls.groups(),
              calls.groupsDelivered(),
              calls.violations().size()));
    }
    return new Result(kind, run, node, verdict, exitStatus, note, dir, caps, load, newInput, calls);
  }

  /** {@code -Drota.faults.calls=on}: a third of the turns send and call ({@link CallTurns}). */
  static boolean callsOn() {
    return "on".equals(System.getProperty("rota.faults.calls", "off"));
  }

  private static void log(FaultKind kind, int run, String message) {
    System.out.printf("[faults] %s run %d: %s%n", kind.label(), run, message);
  }
}
