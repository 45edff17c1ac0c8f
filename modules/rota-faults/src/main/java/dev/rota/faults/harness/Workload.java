package dev.rota.faults.harness;

import com.fasterxml.jackson.databind.JsonNode;
import dev.rota.faults.history.Event.CompleteAttempt;
import dev.rota.faults.history.Event.DeadLetter;
import dev.rota.faults.history.Event.FinalInbox;
import dev.rota.faults.history.Event.Granted;
import dev.rota.faults.history.Event.Outcome;
import dev.rota.faults.history.Event.Published;
import dev.rota.faults.history.Event.Renewed;
import dev.rota.faults.history.History;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The clients of a fault run, all over HTTP, all recording into one {@link History}: a producer
 * thread per agent publishes notifications with unique dedupe keys (retrying an unacknowledged one
 * with the same key, possibly on another node), and external runners claim, sometimes heartbeat,
 * and complete (retrying an unanswered completion until it is answered or the lease is past its
 * expiry). A few activations stall past their lease on purpose, so that every run also sends stale
 * completions the cluster must refuse.
 */
public final class Workload {
  static final int LEASE_SECONDS = 5;

  /**
   * Short, so that a publish stuck on a request the cluster lost answers soon and the window per
   * agent is measured to about a second; an unanswered publish is retried with its dedupe key.
   */
  private static final Duration PUBLISH_TIMEOUT = Duration.ofSeconds(1);

  private static final Duration REPORT_TIMEOUT = Duration.ofSeconds(3);
  private static final int CLAIM_WAIT_SECONDS = 1;
  private static final Duration PUBLISH_INTERVAL = Duration.ofMillis(1000);
  private static final double STALL_PROBABILITY = 0.03;

  private final FaultCluster cluster;
  private final History history;
  private final List<String> agents = new ArrayList<>();
  private final int runners;
  private final RotaApi api = new RotaApi();
  private final List<Thread> producerThreads = new ArrayList<>();
  private final List<Thread> runnerThreads = new ArrayList<>();
  private volatile boolean producing;
  private volatile boolean running;

  public Workload(FaultCluster cluster, History history, int agents, int runners) {
    this.cluster = cluster;
    this.history = history;
    this.runners = runners;
    for (int i = 0; i < agents; i++) {
      this.agents.add(String.format("agent-%03d", i));
    }
  }

  public List<String> agents() {
    return agents;
  }

  /** Registers the agents (many attempts allowed, so that nothing dead-letters by retries). */
  public void registerAgents() {
    for (String agent : agents) {
      String body = RotaApi.json(Map.of("maxAttempts", 100, "maxInboxDepth", 100000));
      retryUntilOk("register " + agent, "PUT", "/v1/agents/" + agent, body);
    }
  }

  public void start() {
    producing = true;
    running = true;
    for (String agent : agents) {
      Thread thread = new Thread(() -> produce(agent), "producer-" + agent);
      thread.setDaemon(true);
      producerThreads.add(thread);
      thread.start();
    }
    for (int i = 0; i < runners; i++) {
      String runnerId = "runner-" + i;
      Thread thread = new Thread(() -> run(runnerId), runnerId);
      thread.setDaemon(true);
      runnerThreads.add(thread);
      thread.start();
    }
  }

  public void stopProducers() {
    producing = false;
    join(producerThreads);
  }

  public void stopRunners() {
    running = false;
    join(runnerThreads);
  }

  private void produce(String agent) {
    int sequence = 0;
    // Spread the agents' first publishes over one interval.
    FaultCluster.sleep(
        Duration.ofMillis(ThreadLocalRandom.current().nextLong(PUBLISH_INTERVAL.toMillis())));
    while (producing) {
      String key = agent + "-" + sequence++;
      String body =
          RotaApi.json(Map.of("type", "fault", "payload", Map.of("k", key), "dedupeKey", key));
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
          RotaApi.Response response =
              api.send(
                  node.httpPort(),
                  "POST",
                  "/v1/agents/" + agent + "/notifications",
                  body,
                  PUBLISH_TIMEOUT);
          outcome = response.status() == 202 ? Outcome.OK : Outcome.FAILED;
          detail = Integer.toString(response.status());
          if (outcome == Outcome.OK) {
            id = response.body().path("notificationId").asText();
          }
        } catch (IOException e) {
          outcome = Outcome.FAILED;
          detail = e.getClass().getSimpleName();
        }
        history.add(
            new Published(
                agent, key, node.index(), start, System.currentTimeMillis(), outcome, id, detail));
        acknowledged = outcome == Outcome.OK;
        if (!acknowledged) {
          FaultCluster.sleep(Duration.ofMillis(200));
        }
      }
      long jitter = ThreadLocalRandom.current().nextLong(-200, 200);
      FaultCluster.sleep(PUBLISH_INTERVAL.plusMillis(jitter));
    }
  }

  private void run(String runnerId) {
    String claim =
        RotaApi.json(
            Map.of(
                "runnerId", runnerId,
                "mode", "notification",
                "waitSeconds", CLAIM_WAIT_SECONDS,
                "leaseSeconds", LEASE_SECONDS));
    while (running) {
      NodeProcess node = cluster.pick();
      if (node == null) {
        FaultCluster.sleep(Duration.ofMillis(200));
        continue;
      }
      long start = System.currentTimeMillis();
      JsonNode assignment;
      try {
        RotaApi.Response response =
            api.send(
                node.httpPort(),
                "POST",
                "/v1/claims",
                claim,
                Duration.ofSeconds(CLAIM_WAIT_SECONDS + 10));
        if (!response.ok() || !"assigned".equals(response.body().path("status").asText())) {
          if (!response.ok()) {
            FaultCluster.sleep(Duration.ofMillis(200));
          }
          continue;
        }
        assignment = response.body().path("assignment");
      } catch (IOException e) {
        FaultCluster.sleep(Duration.ofMillis(200));
        continue;
      }
      List<String> keys = new ArrayList<>();
      for (JsonNode notification : assignment.path("notifications")) {
        keys.add(notification.path("payload").path("k").asText());
      }
      String leaseId = assignment.path("leaseId").asText();
      String agentId = assignment.path("agentId").asText();
      long expiresAt = millis(assignment.path("expiresAt").asText());
      history.add(
          new Granted(
              runnerId,
              node.index(),
              leaseId,
              agentId,
              millis(assignment.path("grantedAt").asText()),
              expiresAt,
              keys,
              start,
              System.currentTimeMillis()));
      work(leaseId, agentId, expiresAt);
    }
  }

  /** Runs one activation: a short "turn", sometimes a heartbeat, rarely a stall; then completes. */
  private void work(String leaseId, String agentId, long expiresAt) {
    ThreadLocalRandom random = ThreadLocalRandom.current();
    if (random.nextDouble() < STALL_PROBABILITY) {
      FaultCluster.sleep(Duration.ofMillis(LEASE_SECONDS * 1000L + 1500));
    } else {
      FaultCluster.sleep(Duration.ofMillis(random.nextLong(50, 300)));
      if (random.nextDouble() < 0.3) {
        expiresAt = Math.max(expiresAt, heartbeat(leaseId));
        FaultCluster.sleep(Duration.ofMillis(random.nextLong(50, 300)));
      }
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
      try {
        RotaApi.Response response =
            api.send(
                node.httpPort(),
                "POST",
                "/v1/leases/" + leaseId + "/complete",
                "{}",
                REPORT_TIMEOUT);
        outcome =
            response.ok() ? Outcome.OK : response.status() == 410 ? Outcome.LOST : Outcome.FAILED;
      } catch (IOException e) {
        outcome = Outcome.FAILED;
      }
      history.add(
          new CompleteAttempt(
              leaseId, agentId, node.index(), start, System.currentTimeMillis(), outcome));
      if (outcome != Outcome.FAILED || System.currentTimeMillis() > expiresAt + 3000) {
        return;
      }
      FaultCluster.sleep(Duration.ofMillis(200));
    }
  }

  /** One heartbeat; the new expiry when it succeeded, else 0. */
  private long heartbeat(String leaseId) {
    NodeProcess node = cluster.pick();
    if (node == null) {
      return 0;
    }
    long start = System.currentTimeMillis();
    Outcome outcome;
    long expiresAt = 0;
    try {
      RotaApi.Response response =
          api.send(
              node.httpPort(),
              "POST",
              "/v1/leases/" + leaseId + "/heartbeat",
              null,
              REPORT_TIMEOUT);
      outcome =
          response.ok() ? Outcome.OK : response.status() == 410 ? Outcome.LOST : Outcome.FAILED;
      if (outcome == Outcome.OK) {
        expiresAt = millis(response.body().path("expiresAt").asText());
      }
    } catch (IOException e) {
      outcome = Outcome.FAILED;
    }
    history.add(new Renewed(leaseId, start, System.currentTimeMillis(), outcome, expiresAt));
    return expiresAt;
  }

  /**
   * Waits until no agent has unread notifications or a lease (runners still running), at most
   * {@code timeout}; true if it got there.
   */
  public boolean drain(Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      boolean empty = true;
      for (String agent : agents) {
        JsonNode view = view(agent);
        if (view == null
            || view.path("inbox").path("unread").asInt() > 0
            || !view.path("lease").isNull()) {
          empty = false;
          break;
        }
      }
      if (empty) {
        return true;
      }
      FaultCluster.sleep(Duration.ofSeconds(1));
    }
    return false;
  }

  /** Records every agent's inbox and dead letters (after {@link #stopRunners()}). */
  public void recordFinalState() {
    for (String agent : agents) {
      long now = System.currentTimeMillis();
      JsonNode view = view(agent);
      if (view == null) {
        history.add(new FinalInbox(agent, -1, true, now));
        continue;
      }
      history.add(
          new FinalInbox(
              agent, view.path("inbox").path("unread").asInt(), !view.path("lease").isNull(), now));
      JsonNode dead = get("/admin/dead-letters?agentId=" + agent + "&limit=100");
      if (dead != null) {
        for (JsonNode letter : dead.path("deadLetters")) {
          history.add(new DeadLetter(agent, letter.path("payload").path("k").asText(), now));
        }
      }
    }
  }

  private JsonNode view(String agent) {
    return get("/v1/agents/" + agent);
  }

  private JsonNode get(String path) {
    for (int attempt = 0; attempt < 10; attempt++) {
      NodeProcess node = cluster.pick();
      try {
        if (node != null) {
          RotaApi.Response response = api.send(node.httpPort(), "GET", path, null, REPORT_TIMEOUT);
          if (response.ok()) {
            return response.body();
          }
        }
      } catch (IOException e) {
        // Try again, maybe on another node.
      }
      FaultCluster.sleep(Duration.ofMillis(300));
    }
    return null;
  }

  private void retryUntilOk(String what, String method, String path, String body) {
    for (int attempt = 0; attempt < 50; attempt++) {
      NodeProcess node = cluster.pick();
      try {
        if (node != null && api.send(node.httpPort(), method, path, body, REPORT_TIMEOUT).ok()) {
          return;
        }
      } catch (IOException e) {
        // Try again.
      }
      FaultCluster.sleep(Duration.ofMillis(300));
    }
    throw new IllegalStateException(what + " did not succeed in 50 attempts");
  }

  private static long millis(String instant) {
    return instant == null || instant.isEmpty() ? 0 : Instant.parse(instant).toEpochMilli();
  }

  private static void join(List<Thread> threads) {
    for (Thread thread : threads) {
      try {
        thread.join(30_000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
