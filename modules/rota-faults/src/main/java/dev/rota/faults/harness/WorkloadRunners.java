package dev.rota.faults.harness;

import static dev.rota.faults.harness.Workload.join;
import static dev.rota.faults.harness.Workload.millis;

import dev.rota.client.Assignment;
import dev.rota.client.ClaimResult;
import dev.rota.client.LeaseInput;
import dev.rota.client.RotaClient;
import dev.rota.client.RotaException;
import dev.rota.client.RunnerMode;
import dev.rota.faults.history.Event.Carried;
import dev.rota.faults.history.Event.CompleteAttempt;
import dev.rota.faults.history.Event.Granted;
import dev.rota.faults.history.Event.Interrupted;
import dev.rota.faults.history.Event.Outcome;
import dev.rota.faults.history.Event.Renewed;
import dev.rota.faults.history.Event.Sent;
import dev.rota.faults.history.Event.Steered;
import dev.rota.faults.history.History;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * The external runners of a {@link Workload}: a thread per runner that claims on any routable node,
 * runs a short turn (sometimes heartbeating, rarely stalling past its lease), and completes,
 * recording every claim, heartbeat and completion attempt into the {@link History}.
 */
public final class WorkloadRunners {
  private static final int CLAIM_WAIT_SECONDS = 1;
  private static final double STALL_PROBABILITY = 0.03;

  private final FaultCluster cluster;
  private final History history;
  private final Function<NodeProcess, NodeClients> clients;
  private final List<Thread> threads = new ArrayList<>();
  private volatile boolean running;
  private volatile int leaseSeconds = Workload.LEASE_SECONDS;
  private volatile boolean longTurns;
  private volatile boolean followInput;
  private volatile CallTurns calls;
  private final AtomicInteger inputSeenRefused = new AtomicInteger();

  /** Runners with SDK clients of their own (the soak's; a {@link Workload} shares its clients). */
  public WorkloadRunners(FaultCluster cluster, History history) {
    this(cluster, history, new java.util.concurrent.ConcurrentHashMap<NodeProcess, NodeClients>());
  }

  private WorkloadRunners(
      FaultCluster cluster, History history, Map<NodeProcess, NodeClients> clients) {
    this(
        cluster,
        history,
        node ->
            clients.computeIfAbsent(
                node,
                n ->
                    new NodeClients(
                        java.net.URI.create("http://" + n.host() + ":" + n.httpPort()))));
  }

  WorkloadRunners(
      FaultCluster cluster, History history, Function<NodeProcess, NodeClients> clients) {
    this.cluster = cluster;
    this.history = history;
    this.clients = clients;
  }

  /** Starts {@code count} runners, {@code runner-0} on. */
  public void start(int count) {
    running = true;
    for (int i = 0; i < count; i++) {
      String runnerId = "runner-" + i;
      Thread thread = new Thread(() -> run(runnerId), runnerId);
      thread.setDaemon(true);
      threads.add(thread);
      thread.start();
    }
  }

  /** The lease the next claims ask for, and whether turns are long (5–15 s) or short. */
  void turns(int leaseSeconds, boolean longTurns) {
    this.leaseSeconds = leaseSeconds;
    this.longTurns = longTurns;
  }

  /** Runners ask for new input before they complete, and record what their answers say. */
  void followInput() {
    followInput = true;
  }

  /** Runners claim and complete over raw HTTP, and call agents' turns send and call. */
  void followCalls(CallTurns turns) {
    calls = turns;
  }

  public void stop() {
    running = false;
    join(threads);
  }

  private void run(String runnerId) {
    while (running) {
      NodeProcess node = cluster.pick();
      if (node == null) {
        FaultCluster.sleep(Duration.ofMillis(200));
        continue;
      }
      if (calls != null) {
        runWithCalls(runnerId, node, calls);
        continue;
      }
      long start = System.currentTimeMillis();
      Assignment assignment;
      try {
        ClaimResult result =
            clients
                .apply(node)
                .claims
                .claim(
                    runnerId, RunnerMode.NOTIFICATION, Set.of(), CLAIM_WAIT_SECONDS, leaseSeconds);
        if (result.refused()) {
          // Degraded (its stalls expired leases in a row) or drained: the answer comes at once,
          // so wait rather than ask again in a tight loop.
          FaultCluster.sleep(Duration.ofSeconds(1));
          continue;
        }
        if (!result.assigned()) {
          continue;
        }
        assignment = result.assignment();
      } catch (RotaException e) {
        FaultCluster.sleep(Duration.ofMillis(200));
        continue;
      }
      List<String> keys = new ArrayList<>();
      for (Assignment.Item notification : assignment.notifications()) {
        if (notification.payload().has("k")) {
          keys.add(notification.payload().path("k").asText());
        }
      }
      long expiresAt = millis(assignment.expiresAt());
      long answered = System.currentTimeMillis();
      history.add(
          new Granted(
              runnerId,
              node.index(),
              assignment.leaseId(),
              assignment.agentId(),
              millis(assignment.grantedAt()),
              expiresAt,
              keys,
              start,
              answered));
      // The runner's own deadline: the lease's length from the claim's sending, on the suite's
      // clock; the server's expiresAt is on the granting node's clock, which may run off.
      long lengthMs = expiresAt - millis(assignment.grantedAt());
      work(runnerId, assignment.leaseId(), assignment.agentId(), start + lengthMs, lengthMs, null);
    }
  }

  /** One claim of the call workload, over raw HTTP, and its turn. */
  private void runWithCalls(String runnerId, NodeProcess node, CallTurns turns) {
    long start = System.currentTimeMillis();
    CallTurns.Claimed claimed;
    try {
      claimed = turns.claim(node, runnerId, CLAIM_WAIT_SECONDS, leaseSeconds);
    } catch (java.io.IOException e) {
      FaultCluster.sleep(Duration.ofMillis(200));
      return;
    }
    if (claimed == null) {
      return;
    }
    long answered = System.currentTimeMillis();
    history.add(
        new Granted(
            runnerId,
            node.index(),
            claimed.leaseId(),
            claimed.agentId(),
            claimed.grantedAt(),
            claimed.expiresAt(),
            claimed.keys(),
            start,
            answered));
    Carried carried = claimed.carried(answered);
    if (carried != null) {
      history.add(carried);
    }
    long lengthMs = claimed.expiresAt() - claimed.grantedAt();
    CallTurns.Turn turn = turns.plan(claimed);
    work(runnerId, claimed.leaseId(), claimed.agentId(), start + lengthMs, lengthMs, turn);
  }

  /**
   * Runs one activation: a short "turn", sometimes a heartbeat, rarely a stall; then completes
   * (with {@code turn}'s result and sends over raw HTTP when it is not null).
   */
  private void work(
      String runnerId,
      String leaseId,
      String agentId,
      long deadline,
      long lengthMs,
      CallTurns.Turn turn) {
    ThreadLocalRandom random = ThreadLocalRandom.current();
    // The runner's cursor on new input: the steered notifications this turn was given.
    List<String> seen = new ArrayList<>();
    if (random.nextDouble() < STALL_PROBABILITY) {
      FaultCluster.sleep(Duration.ofMillis(leaseSeconds * 1000L + 1500));
    } else {
      FaultCluster.sleep(
          Duration.ofMillis(longTurns ? random.nextLong(5000, 15000) : random.nextLong(50, 300)));
      if (random.nextDouble() < 0.3) {
        deadline = Math.max(deadline, heartbeat(runnerId, leaseId, lengthMs, seen));
        FaultCluster.sleep(Duration.ofMillis(random.nextLong(50, 300)));
      }
    }
    if (followInput) {
      newInput(runnerId, leaseId, seen);
    }
    if (turn != null && !turn.sends().isEmpty()) {
      history.add(new Sent(leaseId, agentId, turn.sends(), System.currentTimeMillis()));
    }
    // Retry an unanswered completion until it is answered or well past the lease's expiry.
    while (true) {
      NodeProcess node = cluster.pick();
      if (node == null) {
        FaultCluster.sleep(Duration.ofMillis(200));
        continue;
      }
      long start = System.currentTimeMillis();
      Outcome outcome;
      if (turn != null) {
        CallTurns.Completion completion = calls.complete(node, leaseId, runnerId, turn, seen);
        outcome = completion.outcome();
        if (completion.interrupted()) {
          history.add(new Interrupted(leaseId, System.currentTimeMillis()));
        }
      } else {
        try {
          complete(node, leaseId, runnerId, seen);
          outcome = Outcome.OK;
        } catch (RotaException.LeaseLost e) {
          outcome = Outcome.LOST;
          interruptedIf(e, leaseId);
        } catch (RotaException e) {
          outcome = Outcome.FAILED;
        }
      }
      history.add(
          new CompleteAttempt(
              leaseId, agentId, node.index(), start, System.currentTimeMillis(), outcome));
      if (outcome != Outcome.FAILED || System.currentTimeMillis() > deadline + 3000) {
        return;
      }
      FaultCluster.sleep(Duration.ofMillis(200));
    }
  }

  /**
   * Completes through the SDK with the runner's cursor. A node from before the cursor refuses the
   * field (400 {@code unknown field 'inputSeen'}) and does nothing: the completion goes once more
   * without it, to the same node, as the Python and TypeScript SDKs do; that node then counts every
   * steered notification as the turn's, as it always did.
   */
  private void complete(NodeProcess node, String leaseId, String runnerId, List<String> seen) {
    RotaClient reports = clients.apply(node).reports;
    try {
      reports.complete(leaseId, runnerId, null, List.of(), List.of(), seen);
    } catch (RotaException.Invalid e) {
      if (!RotaApi.refusesInputSeen(e.getMessage())) {
        throw e;
      }
      inputSeenRefused.incrementAndGet();
      reports.complete(leaseId, runnerId, null, List.of(), List.of(), null);
    }
  }

  /** Completions a node refused for their {@code inputSeen} and that went again without it. */
  int inputSeenRefused() {
    return inputSeenRefused.get() + (calls == null ? 0 : calls.inputSeenRefused());
  }

  /**
   * One heartbeat; the runner's new deadline when it succeeded (the lease's length from the
   * heartbeat's sending, on the suite's clock), else 0.
   */
  private long heartbeat(String runnerId, String leaseId, long lengthMs, List<String> seen) {
    NodeProcess node = cluster.pick();
    if (node == null) {
      return 0;
    }
    long start = System.currentTimeMillis();
    Outcome outcome;
    long expiresAt = 0;
    try {
      LeaseInput.LeaseBeat beat =
          LeaseInput.of(clients.apply(node).reports).heartbeat(leaseId, runnerId);
      Instant extended = beat.expiresAt();
      outcome = Outcome.OK;
      expiresAt = extended == null ? 0 : extended.toEpochMilli();
      steered(leaseId, beat.notifications(), seen);
    } catch (RotaException.LeaseLost e) {
      outcome = Outcome.LOST;
      interruptedIf(e, leaseId);
    } catch (RotaException e) {
      outcome = Outcome.FAILED;
    }
    history.add(new Renewed(leaseId, start, System.currentTimeMillis(), outcome, expiresAt));
    return outcome == Outcome.OK ? start + lengthMs : 0;
  }

  /** Asks once, without waiting, for the turn's new input and records it. */
  private void newInput(String runnerId, String leaseId, List<String> seen) {
    NodeProcess node = cluster.pick();
    if (node == null) {
      return;
    }
    try {
      LeaseInput.NewInput in =
          LeaseInput.of(clients.apply(node).reports).await(leaseId, runnerId, 0);
      steered(leaseId, in.notifications(), seen);
      if (in.interrupted()) {
        history.add(new Interrupted(leaseId, System.currentTimeMillis()));
      }
    } catch (RotaException.LeaseLost e) {
      interruptedIf(e, leaseId);
    } catch (RotaException e) {
      // the completion that follows finds out
    }
  }

  /** Records the steered notifications the runner was given, and adds them to its cursor. */
  private void steered(String leaseId, List<Assignment.Item> notifications, List<String> seen) {
    if (notifications.isEmpty()) {
      return;
    }
    List<String> keys = new ArrayList<>();
    notifications.forEach(n -> keys.add(n.payload().path("k").asText()));
    notifications.forEach(n -> seen.add(n.notificationId()));
    history.add(new Steered(leaseId, keys, System.currentTimeMillis()));
  }

  private void interruptedIf(RotaException.LeaseLost e, String leaseId) {
    if (e.interrupted()) {
      history.add(new Interrupted(leaseId, System.currentTimeMillis()));
    }
  }
}
