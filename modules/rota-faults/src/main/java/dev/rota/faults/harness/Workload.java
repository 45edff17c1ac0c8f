package dev.rota.faults.harness;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.rota.client.Agent;
import dev.rota.client.AgentSpec;
import dev.rota.client.Notification;
import dev.rota.client.NotifyResult;
import dev.rota.client.RotaClient;
import dev.rota.client.RotaException;
import dev.rota.faults.history.Event.DeadLetter;
import dev.rota.faults.history.Event.FinalInbox;
import dev.rota.faults.history.Event.Outcome;
import dev.rota.faults.history.Event.Published;
import dev.rota.faults.history.History;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * The clients of a fault run, all through the SDK's {@link RotaClient}, all recording into one
 * {@link History}: a producer thread per agent publishes notifications with unique dedupe keys
 * (retrying an unacknowledged one with the same key, possibly on another node), and external
 * runners claim, sometimes heartbeat, and complete (retrying an unanswered completion until it is
 * answered or the lease is past its expiry). A few activations stall past their lease on purpose,
 * so that every run also sends stale completions the cluster must refuse.
 *
 * <p>The SDK's clients here retry nothing ({@code retries(0)}): the workload retries itself, on any
 * node, so that every attempt is in the history with its own times and outcome, as the checker
 * needs. For the same reason the runners are loops over {@link RotaClient#claim}, {@code heartbeat}
 * and {@code complete} rather than {@code RotaRunner}: that one heartbeats every lease, stops a
 * handler at its lease's end and retries reports internally, which is right for users but would
 * keep the suite from sending the stale completions the cluster must refuse and hide attempts.
 */
public final class Workload {
  static final int LEASE_SECONDS = 5;

  private static final Duration PUBLISH_INTERVAL = Duration.ofMillis(1000);

  private final FaultCluster cluster;
  private final History history;
  private final List<String> agents = new ArrayList<>();
  private final int runners;
  private final Map<String, NodeClients> clients = new ConcurrentHashMap<>();
  private final WorkloadRunners runnerLoops;
  private final List<Thread> producerThreads = new ArrayList<>();
  private final WorkloadStray stray;
  private volatile boolean producing;

  public Workload(FaultCluster cluster, History history, int agents, int runners) {
    this.cluster = cluster;
    this.history = history;
    this.runners = runners;
    this.runnerLoops = new WorkloadRunners(cluster, history, this::clients);
    this.stray = new WorkloadStray(history, this.agents, this::clients);
    for (int i = 0; i < agents; i++) {
      this.agents.add(String.format("agent-%03d", i));
    }
  }

  public List<String> agents() {
    return agents;
  }

  private boolean mixedNewInput;

  /** The call agents of the call workload (empty: none; see {@link CallTurns}). */
  private final List<String> callAgents = new ArrayList<>();

  /** Notifications its producers had acknowledged (the stray thread's not counted). */
  private final AtomicInteger acknowledgedCount = new AtomicInteger();

  /**
   * Mixed {@code newInput}: agents register with the policies of {@link NewInputMix} in turn, each
   * notification draws its own at random, and runners record what they are told.
   */
  public void mixNewInput() {
    mixedNewInput = true;
    runnerLoops.followInput();
  }

  /**
   * The call workload: a third of the agents (a third of the turns) send, calls in chains of depth
   * 3 and in groups of 3, among those agents ({@link CallTurns}); they queue new input whatever the
   * mix, so that a reply never interrupts or is refused. Runners claim and complete over raw HTTP.
   */
  public void withCalls() {
    // Three of every nine (0, 4, 8): a third, whose ids do not share one residue of their hash
    // (agent-000, -003, ... would all be one node's shards).
    for (int i = 0; i < agents.size(); i++) {
      if (i % 9 % 4 == 0) {
        callAgents.add(agents.get(i));
      }
    }
    runnerLoops.followCalls(new CallTurns(callAgents));
  }

  /**
   * Lets the producers go on until they have acknowledged {@code count} notifications in all, for
   * {@code timeout} at most; true if they got there.
   */
  public boolean awaitAcknowledged(int count, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (acknowledgedCount.get() < count && System.nanoTime() < deadline) {
      FaultCluster.sleep(Duration.ofMillis(500));
    }
    return acknowledgedCount.get() >= count;
  }

  /**
   * Completions a node from before the runner's cursor on new input refused for their {@code
   * inputSeen}, each sent again without it (a rolling upgrade's old nodes).
   */
  public int inputSeenRefused() {
    return runnerLoops.inputSeenRefused();
  }

  /** Registers the agents (many attempts allowed, so that nothing dead-letters by retries). */
  public void registerAgents() {
    for (int i = 0; i < agents.size(); i++) {
      String agent = agents.get(i);
      AgentSpec spec = AgentSpec.create().maxAttempts(100).maxInboxDepth(100000);
      if (callAgents.contains(agent)) {
        spec.newInput("queue");
      } else if (mixedNewInput) {
        spec.newInput(NewInputMix.ofAgent(i));
      }
      retryUntilOk("register " + agent, client -> client.registerAgent(agent, spec));
    }
  }

  public void start() {
    producing = true;
    for (String agent : agents) {
      Thread thread = new Thread(() -> produce(agent), "producer-" + agent);
      thread.setDaemon(true);
      producerThreads.add(thread);
      thread.start();
    }
    runnerLoops.start(runners);
  }

  /**
   * Starts {@code threads} closed-loop producers besides the one per agent ({@link
   * WorkloadPressure}); {@link #stopProducers()} stops them too.
   */
  public void startPressure(int threads) {
    producerThreads.addAll(
        new WorkloadPressure(cluster, history, agents, this::clients, () -> producing)
            .start(threads));
  }

  /**
   * Leases of 20 s and turns of 5–15 s from now on (instead of 5 s and 50–600 ms): most runners
   * hold a lease at any moment, and a lease outlives a failover (about 9 s), so a fault on a node
   * hands live leases, and runners still at work, over to another node (the clock-skew fault).
   */
  public void longTurns() {
    runnerLoops.turns(20, true);
  }

  /** Back to the usual short leases and turns (before draining: long turns drain too slowly). */
  public void shortTurns() {
    runnerLoops.turns(LEASE_SECONDS, false);
  }

  /**
   * Starts posting through {@code node} only, whatever its state (a node cut off from the others
   * that its clients still reach): a thread that sends one notification after another to the agents
   * in turn, each with a key of its own ({@code stray-<n>}) and no retry. What it acknowledges must
   * not be lost like any other notification; its failures are recorded too.
   */
  public void startStray(NodeProcess node) {
    stray.start(node);
  }

  public void stopStray() {
    stray.stop();
  }

  public void stopProducers() {
    producing = false;
    join(producerThreads);
  }

  public void stopRunners() {
    runnerLoops.stop();
  }

  private void produce(String agent) {
    int sequence = 0;
    // Spread the agents' first publishes over one interval.
    FaultCluster.sleep(
        Duration.ofMillis(ThreadLocalRandom.current().nextLong(PUBLISH_INTERVAL.toMillis())));
    while (producing) {
      String key = agent + "-" + sequence++;
      Notification notification =
          Notification.of("fault", JsonNodeFactory.instance.objectNode().put("k", key))
              .dedupeKey(key);
      // Its own newInput, the same for every attempt of the key (null: the agent's).
      String policy =
          mixedNewInput && !callAgents.contains(agent) ? NewInputMix.ofNotification() : null;
      if (policy != null) {
        notification = notification.newInput(policy);
      }
      boolean acknowledged = false;
      while (!acknowledged && producing) {
        NodeProcess node = cluster.pick();
        if (node == null) {
          FaultCluster.sleep(Duration.ofMillis(200));
          continue;
        }
        long start = System.currentTimeMillis();
        Outcome outcome;
        String id = null;
        String detail;
        try {
          NotifyResult result = clients(node).publish.notify(agent, notification);
          outcome = Outcome.OK;
          id = result.notificationId();
          // The checker reads these: which publishes joined or ended the turn running then.
          detail =
              "202"
                  + (result.duplicate() ? " " + Published.DUPLICATE : "")
                  + (result.steered() ? " " + Published.STEERED : "")
                  + (result.interrupted() ? " " + Published.INTERRUPTED : "");
        } catch (RotaException.TurnInProgress e) {
          // Refused while a turn runs, nothing stored: sent again with the same key later.
          outcome = Outcome.REJECTED;
          detail = "409 turn_in_progress";
        } catch (RotaException e) {
          outcome = Outcome.FAILED;
          detail = detail(e);
        }
        if (policy != null) {
          detail += " " + Published.NEW_INPUT + policy;
        }
        history.add(
            new Published(
                agent, key, node.index(), start, System.currentTimeMillis(), outcome, id, detail));
        acknowledged = outcome == Outcome.OK;
        if (acknowledged) {
          acknowledgedCount.incrementAndGet();
        } else {
          FaultCluster.sleep(Duration.ofMillis(outcome == Outcome.REJECTED ? 500 : 200));
        }
      }
      long jitter = ThreadLocalRandom.current().nextLong(-200, 200);
      FaultCluster.sleep(PUBLISH_INTERVAL.plusMillis(jitter));
    }
  }

  /**
   * Waits until no agent has unread notifications or a lease (runners still running), at most
   * {@code timeout}; true if it got there.
   */
  public boolean drain(Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    // With calls, a reply is written after the turn that answers it: empty twice, 3 s apart.
    boolean emptyOnce = false;
    while (System.nanoTime() < deadline) {
      boolean empty = true;
      for (String agent : agents) {
        Agent view = view(agent);
        if (view == null || view.inbox().unread() > 0 || view.lease() != null) {
          empty = false;
          break;
        }
      }
      if (empty && (callAgents.isEmpty() || emptyOnce)) {
        return true;
      }
      emptyOnce = empty;
      FaultCluster.sleep(Duration.ofSeconds(empty ? 3 : 1));
    }
    return false;
  }

  /** Records every agent's inbox and dead letters (after {@link #stopRunners()}). */
  public void recordFinalState() {
    for (String agent : agents) {
      long now = System.currentTimeMillis();
      Agent view = view(agent);
      if (view == null) {
        history.add(new FinalInbox(agent, -1, true, now));
        continue;
      }
      history.add(new FinalInbox(agent, view.inbox().unread(), view.lease() != null, now));
      List<dev.rota.client.DeadLetter> dead = read(client -> client.deadLetters(agent, 100));
      if (dead != null) {
        for (dev.rota.client.DeadLetter letter : dead) {
          // A reply has no key of the workload's: it is known by the call it answers.
          JsonNode payload = letter.payload();
          String key =
              payload.has("k")
                  ? payload.path("k").asText()
                  : "reply:" + payload.path("callId").asText();
          history.add(new DeadLetter(agent, key, now));
        }
      }
    }
  }

  private Agent view(String agent) {
    return read(client -> client.getAgent(agent));
  }

  /** A read on any routable node, tried up to ten times; null if none answered. */
  private <T> T read(Function<RotaClient, T> call) {
    for (int attempt = 0; attempt < 10; attempt++) {
      NodeProcess node = cluster.pick();
      try {
        if (node != null) {
          return call.apply(clients(node).reports);
        }
      } catch (RotaException e) {
        // Try again, maybe on another node.
      }
      FaultCluster.sleep(Duration.ofMillis(300));
    }
    return null;
  }

  private void retryUntilOk(String what, Function<RotaClient, ?> call) {
    for (int attempt = 0; attempt < 50; attempt++) {
      NodeProcess node = cluster.pick();
      try {
        if (node != null) {
          call.apply(clients(node).reports);
          return;
        }
      } catch (RotaException e) {
        // Try again.
      }
      FaultCluster.sleep(Duration.ofMillis(300));
    }
    throw new IllegalStateException(what + " did not succeed in 50 attempts");
  }

  /** The SDK's clients of one node (its address stays the same across restarts). */
  NodeClients clients(NodeProcess node) {
    return clients.computeIfAbsent(
        node.host() + ":" + node.httpPort(),
        address -> new NodeClients(URI.create("http://" + address)));
  }

  /** What the history records of a request that got no acknowledgement. */
  static String detail(RotaException e) {
    if (e instanceof RotaException.Connection connection) {
      Throwable cause = connection.getCause();
      return cause == null ? "Connection" : cause.getClass().getSimpleName();
    }
    return Integer.toString(e.status());
  }

  static long millis(Instant instant) {
    return instant == null ? 0 : instant.toEpochMilli();
  }

  static void join(List<Thread> threads) {
    for (Thread thread : threads) {
      try {
        thread.join(30_000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
