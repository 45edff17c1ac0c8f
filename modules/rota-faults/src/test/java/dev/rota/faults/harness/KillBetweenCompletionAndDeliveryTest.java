package dev.rota.faults.harness;

import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.rota.client.AgentSpec;
import dev.rota.client.Notification;
import dev.rota.client.RotaClient;
import dev.rota.client.RotaException;
import dev.rota.faults.harness.CallTurns.Claimed;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * A sender's node dying between a completion and the delivery of its sends loses none and delivers
 * none twice. One node from the runnable jar on the suite's PostgreSQL; eight agents get producers'
 * notifications, and runners' turns answer each with sends to the others (a third of them calls)
 * over raw HTTP, until the node is killed with {@code kill -9} at a random moment. Right after the
 * kill, before the restart, the test reads {@code agent_schedule.outbox}: the sends that were
 * written with an acknowledged completion but not yet delivered. It kills {@code rota.faults.kills}
 * times (once in the default build, five times with {@code -Pfaults}), and more, up to {@link
 * #EXTRA_KILLS} more, until a kill has caught sends in between, so that the run shows the recovery
 * and the sweeper delivering them; none ever caught fails the test.
 *
 * <p>After the last restart the runners stop sending, a drainer completes every turn left until no
 * agent has unread notifications, a lease or an outbox, and {@link SendLedger} compares what was
 * sent with what the claims carried: every send of an acknowledged completion delivered once, a
 * call's reply once to its caller, nothing of a refused completion, and at most once what a
 * completion whose answer was lost sent.
 */
class KillBetweenCompletionAndDeliveryTest {
  private static final int AGENTS = 8;
  private static final int RUNNERS = 4;
  private static final int KILLS = Integer.getInteger("rota.faults.kills", 1);
  private static final int EXTRA_KILLS = 4;
  private static final int MAX_SENDS = 3;
  private static final int LEASE_SECONDS = 10;
  private static final Duration SETTLE = Duration.ofSeconds(150);
  private static final ObjectMapper JSON = new ObjectMapper();

  private final RotaApi api = new RotaApi();
  private final CallTurns turns = new CallTurns(List.of());
  private final SendLedger ledger = new SendLedger();
  private final List<String> agents = new ArrayList<>();

  @Test
  void everySendOfAnAcknowledgedCompletionLandsOnceAfterKillsOnPostgres() throws SQLException {
    Path dir = SingleNode.out().resolve("kill-send-postgres");
    for (int i = 0; i < AGENTS; i++) {
      agents.add("send-" + i);
    }
    try (FaultPostgres db = FaultPostgres.start(dir.resolve("postgres"))) {
      NodeProcess node =
          SingleNode.create(
              dir,
              SingleNode.config("postgres.conf"),
              Map.of("ROTA_DB_URL", db.jdbcUrl(), "ROTA_DB_USER", "postgres"));
      RotaClient client =
          RotaClient.builder(URI.create("http://127.0.0.1:" + node.httpPort()))
              .connectTimeout(Duration.ofSeconds(1))
              .readTimeout(Duration.ofSeconds(10))
              .retries(0)
              .build();
      try {
        run(node, client, db);
      } finally {
        client.close();
        node.destroy();
      }
    }
  }

  private void run(NodeProcess node, RotaClient client, FaultPostgres db) throws SQLException {
    node.start();
    SingleNode.awaitReady(api, node);
    AgentSpec spec = AgentSpec.create().maxInboxDepth(100_000).maxAttempts(100);
    for (String agent : agents) {
      client.registerAgent(agent, spec);
    }
    List<Owed> caught = new ArrayList<>();
    int kills = 0;
    while (kills < KILLS || (noneCaught(caught) && kills < KILLS + EXTRA_KILLS)) {
      kills++;
      workUntilKilled(node, client);
      caught.add(owed(db)); // the node is dead: this is what its journal left undelivered
      node.start();
      SingleNode.awaitReady(api, node);
    }
    Duration settled = drain(node, db);
    List<String> violations = ledger.violations();
    String summary =
        String.format(
            "%d kills, outboxes pending after each kill %s; %d sends (%d acknowledged, %d of them"
                + " calls); settled %d s after the last restart; %d violations",
            kills,
            caught,
            ledger.sends(),
            ledger.acknowledgedSends(),
            ledger.acknowledgedCalls(),
            settled.toSeconds(),
            violations.size());
    System.out.println("[kill-send] " + summary);
    assertTrue(ledger.acknowledgedCalls() > 0, "no call was acknowledged: " + summary);
    // On a quiet machine a delivery can outrun every kill of a short run: the default build
    // reports it; the long run (-Pfaults, several kills) must have caught one.
    assertTrue(
        KILLS == 1 || !noneCaught(caught),
        "no kill caught a send between its completion and its delivery, so the run did not test"
            + " recovering an outbox: "
            + summary);
    assertTrue(
        violations.isEmpty(),
        summary
            + "; e.g. "
            + violations.stream().limit(10).toList()
            + " (logs: "
            + SingleNode.out()
            + ")");
  }

  private static boolean noneCaught(List<Owed> caught) {
    return caught.stream().allMatch(o -> o.items() == 0);
  }

  /** What the read model says agents owe: agents with an outbox, and the items in them. */
  record Owed(int agents, int items) {
    @Override
    public String toString() {
      return items + " items at " + agents + " agents";
    }
  }

  private static Owed owed(FaultPostgres db) throws SQLException {
    try (Connection c = DriverManager.getConnection(db.jdbcUrl(), "postgres", null);
        Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery(
                "select count(*), coalesce(sum(outbox), 0) from agent_schedule where outbox > 0")) {
      rs.next();
      return new Owed(rs.getInt(1), rs.getInt(2));
    }
  }

  /**
   * Runners and a producer work until the node is killed, 2–4 s after they started: the producer
   * posts notifications round the agents, each runner claims, plans its turn's sends and completes
   * once.
   */
  private void workUntilKilled(NodeProcess node, RotaClient client) {
    AtomicBoolean working = new AtomicBoolean(true);
    List<Thread> threads = new ArrayList<>();
    threads.add(
        new Thread(
            () -> {
              for (int i = 0; working.get(); i++) {
                try {
                  client.notify(
                      agents.get(i % AGENTS),
                      Notification.of("work", JsonNodeFactory.instance.objectNode().put("n", i)));
                } catch (RotaException e) {
                  FaultCluster.sleep(Duration.ofMillis(20)); // the node is gone or refusing
                }
                FaultCluster.sleep(Duration.ofMillis(10));
              }
            },
            "producer"));
    for (int r = 0; r < RUNNERS; r++) {
      String runnerId = "runner-" + r;
      threads.add(new Thread(() -> runTurns(node, runnerId, working, true), runnerId));
    }
    threads.forEach(Thread::start);
    FaultCluster.sleep(Duration.ofMillis(ThreadLocalRandom.current().nextLong(2000, 4000)));
    SingleNode.kill(node);
    working.set(false);
    for (Thread thread : threads) {
      try {
        thread.join(30_000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /** Claims and completes while {@code working}; with {@code sending}, turns send. */
  private void runTurns(NodeProcess node, String runnerId, AtomicBoolean working, boolean sending) {
    while (working.get()) {
      Claimed claimed;
      try {
        claimed = turns.claim(node, runnerId, 1, LEASE_SECONDS);
      } catch (IOException e) {
        FaultCluster.sleep(Duration.ofMillis(50));
        continue;
      }
      if (claimed == null) {
        continue;
      }
      ledger.carried(claimed.agentId(), claimed.notifications());
      Planned planned = sending ? plan(claimed) : quiet();
      ledger.sending(planned.sends());
      CallTurns.Completion completion =
          turns.complete(node, claimed.leaseId(), runnerId, planned.turn());
      ledger.completed(claimed.leaseId(), completion.outcome());
    }
  }

  /**
   * A turn carrying producers' notifications sends up to {@link #MAX_SENDS} items to other agents,
   * one per notification, every third a call; a turn serving a call makes no call (it would be one
   * deeper each time), and a turn carrying only sends and replies sends nothing.
   */
  private Planned plan(Claimed claimed) {
    ArrayNode send = JSON.createArrayNode();
    List<SendLedger.Sent> sends = new ArrayList<>();
    boolean servesCall = false;
    int work = 0;
    for (JsonNode n : claimed.notifications()) {
      servesCall |= n.path("call").isObject();
      work += "work".equals(n.path("type").asText()) ? 1 : 0;
    }
    for (int i = 0; i < Math.min(work, MAX_SENDS); i++) {
      String key = claimed.leaseId() + "-s" + i;
      List<String> others = agents.stream().filter(a -> !a.equals(claimed.agentId())).toList();
      String target = others.get(ThreadLocalRandom.current().nextInt(others.size()));
      boolean call = !servesCall && ThreadLocalRandom.current().nextInt(3) == 0;
      ObjectNode item = send.addObject().put("agentId", target).put("type", SendLedger.SEND_TYPE);
      item.putObject("payload").put("k", key);
      if (call) {
        item.putObject("call").put("timeoutSeconds", 3600); // no reply may be a timeout
      }
      sends.add(new SendLedger.Sent(key, claimed.agentId(), target, call, claimed.leaseId()));
    }
    return new Planned(
        new CallTurns.Turn(JSON.createObjectNode().put("ok", true), send, List.of()), sends);
  }

  private static Planned quiet() {
    return new Planned(
        new CallTurns.Turn(JSON.createObjectNode().put("ok", true), null, List.of()), List.of());
  }

  /** A turn to complete with, and its send items as the ledger knows them. */
  private record Planned(CallTurns.Turn turn, List<SendLedger.Sent> sends) {}

  /**
   * One runner completes every turn left, sending nothing, until the read model shows no unread
   * notification, no lease and no outbox; how long that took.
   */
  private Duration drain(NodeProcess node, FaultPostgres db) throws SQLException {
    long start = System.nanoTime();
    long deadline = start + SETTLE.toNanos();
    AtomicBoolean working = new AtomicBoolean(true);
    Thread drainer = new Thread(() -> runTurns(node, "drainer", working, false), "drainer");
    drainer.start();
    try {
      while (true) {
        String left = left(db);
        if (left == null) {
          return Duration.ofNanos(System.nanoTime() - start);
        }
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException(
              "not settled " + SETTLE.toSeconds() + " s after the last restart: " + left);
        }
        FaultCluster.sleep(Duration.ofMillis(500));
      }
    } finally {
      working.set(false);
      try {
        drainer.join(30_000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /** What is still under way by the read model, or null when nothing is. */
  private static String left(FaultPostgres db) throws SQLException {
    try (Connection c = DriverManager.getConnection(db.jdbcUrl(), "postgres", null);
        Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery(
                "select coalesce(sum(unread), 0), count(lease_id), coalesce(sum(outbox), 0)"
                    + " from agent_schedule")) {
      rs.next();
      int unread = rs.getInt(1);
      int leases = rs.getInt(2);
      int outbox = rs.getInt(3);
      if (unread == 0 && leases == 0 && outbox == 0) {
        return null;
      }
      return unread + " unread, " + leases + " leases, " + outbox + " items owed";
    }
  }
}
