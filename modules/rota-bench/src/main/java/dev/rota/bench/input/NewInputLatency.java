package dev.rota.bench.input;

import com.typesafe.config.ConfigFactory;
import dev.rota.client.AgentSpec;
import dev.rota.client.Assignment;
import dev.rota.client.ClaimResult;
import dev.rota.client.LeaseInput;
import dev.rota.client.Notification;
import dev.rota.client.RotaClient;
import dev.rota.client.RunnerMode;
import dev.rota.server.RotaNode;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * The latency targets of new input during a turn, on one in-process node (embedded H2) over HTTP
 * through the Java SDK's client: docs/performance.md, "New input during a turn".
 *
 * <ul>
 *   <li>steer: from sending a notification to a steering agent until the runner's waiting {@code
 *       input} call returns it;
 *   <li>interrupt: from sending the notification until the runner's waiting {@code input} call says
 *       {@code interrupted}, and until a waiting claim is granted the agent's next turn;
 *   <li>debounce: bursts of 10 notifications 100 ms apart to an agent with {@code debounceMs} 500
 *       must each become exactly one turn carrying all ten.
 * </ul>
 *
 * <pre>
 * java -cp modules/rota-bench/target/rota-bench.jar dev.rota.bench.input.NewInputLatency [rounds]
 * </pre>
 */
public final class NewInputLatency {
  private static final String CAP = "new-input-bench";

  private final RotaClient client;
  private final ExecutorService pool = Executors.newCachedThreadPool();

  private NewInputLatency(RotaClient client) {
    this.client = client;
  }

  public static void main(String[] args) throws Exception {
    int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 200;
    Path dataDir = Files.createTempDirectory("rota-new-input-");
    RotaNode node =
        RotaNode.start(
            ConfigFactory.parseMap(
                Map.of(
                    "rota.data-dir",
                    dataDir.toString(),
                    "rota.http.port",
                    0,
                    "rota.http.interface",
                    "127.0.0.1",
                    "rota.management.port",
                    0,
                    "rota.cluster.port",
                    0,
                    "rota.cluster.host",
                    "127.0.0.1")));
    RotaClient client =
        RotaClient.builder(URI.create("http://127.0.0.1:" + node.httpPort() + "/"))
            .retries(0)
            .build();
    System.out.println("load before: " + loadAverage());
    NewInputLatency bench = new NewInputLatency(client);
    try {
      bench.awaitReady();
      bench.warmUp();
      List<Double> steer = bench.steer(rounds);
      System.out.println("steer  accepted→input returned: " + summary(steer));
      List<double[]> interrupt = bench.interrupt(rounds);
      System.out.println(
          "interrupt  sent→runner told: " + summary(interrupt.stream().map(d -> d[0]).toList()));
      System.out.println(
          "interrupt  sent→next turn granted: "
              + summary(interrupt.stream().map(d -> d[1]).toList()));
      System.out.println("debounce  " + bench.debounce(Math.max(3, rounds / 40)));
    } finally {
      System.out.println("load after: " + loadAverage());
      bench.pool.shutdownNow();
      client.close();
      node.close();
    }
  }

  private void awaitReady() throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
    while (true) {
      try {
        client.registerAgent("ready", AgentSpec.create().capabilities("none"));
        return;
      } catch (RuntimeException e) {
        if (System.nanoTime() > deadline) {
          throw e;
        }
        Thread.sleep(200);
      }
    }
  }

  private void warmUp() throws Exception {
    steer(30);
    interrupt(30);
  }

  private Assignment claim(String runner, int waitSeconds) {
    ClaimResult r = client.claim(runner, RunnerMode.NOTIFICATION, Set.of(CAP), waitSeconds, 60);
    return r.assigned() ? r.assignment() : null;
  }

  /** A turn of a fresh agent with one notification; its lease. */
  private Assignment turnOf(String agent, String newInput) {
    client.registerAgent(agent, AgentSpec.create().capabilities(CAP).newInput(newInput));
    client.notify(agent, Notification.of("first"));
    Assignment a = claim("bench-runner", 5);
    if (a == null || !a.agentId().equals(agent)) {
      throw new IllegalStateException("expected a turn of " + agent + ", got " + a);
    }
    return a;
  }

  private List<Double> steer(int rounds) throws Exception {
    List<Double> ms = new ArrayList<>();
    for (int i = 0; i < rounds; i++) {
      String agent = "steer-" + System.nanoTime();
      Assignment a = turnOf(agent, "steer");
      CompletableFuture<Long> returned =
          CompletableFuture.supplyAsync(
              () -> {
                var in = LeaseInput.of(client).await(a.leaseId(), "bench-runner", 10);
                if (in.notifications().isEmpty()) {
                  throw new IllegalStateException("no steered notification");
                }
                return System.nanoTime();
              },
              pool);
      Thread.sleep(20); // let the poll reach the agent: the common case is a waiting runner
      long sent = System.nanoTime();
      client.notify(agent, Notification.of("second"));
      ms.add((returned.get(15, TimeUnit.SECONDS) - sent) / 1e6);
      client.complete(a.leaseId(), "bench-runner", null);
    }
    return ms;
  }

  private List<double[]> interrupt(int rounds) throws Exception {
    List<double[]> ms = new ArrayList<>();
    for (int i = 0; i < rounds; i++) {
      String agent = "interrupt-" + System.nanoTime();
      Assignment a = turnOf(agent, "interrupt");
      CompletableFuture<Long> told =
          CompletableFuture.supplyAsync(
              () -> {
                var in = LeaseInput.of(client).await(a.leaseId(), "bench-runner", 10);
                if (!in.interrupted()) {
                  throw new IllegalStateException("not interrupted");
                }
                return System.nanoTime();
              },
              pool);
      CompletableFuture<Long> granted =
          CompletableFuture.supplyAsync(
              () -> {
                Assignment next = claim("bench-runner-2", 10);
                if (next == null || !next.agentId().equals(agent)) {
                  throw new IllegalStateException("next turn not granted: " + next);
                }
                client.complete(next.leaseId(), "bench-runner-2", null);
                return System.nanoTime();
              },
              pool);
      Thread.sleep(20);
      long sent = System.nanoTime();
      client.notify(agent, Notification.of("stop"));
      long toldAt = told.get(15, TimeUnit.SECONDS);
      long grantedAt = granted.get(15, TimeUnit.SECONDS);
      ms.add(new double[] {(toldAt - sent) / 1e6, (grantedAt - sent) / 1e6});
    }
    return ms;
  }

  /** Bursts of ten, 100 ms apart, to an agent with debounceMs 500: turns and what they carried. */
  private String debounce(int bursts) throws Exception {
    int exact = 0;
    List<String> seen = new ArrayList<>();
    for (int b = 0; b < bursts; b++) {
      String agent = "debounce-" + System.nanoTime();
      client.registerAgent(
          agent, AgentSpec.create().capabilities(CAP).debounce(Duration.ofMillis(500), null));
      CompletableFuture<List<Integer>> turns =
          CompletableFuture.supplyAsync(
              () -> {
                List<Integer> carried = new ArrayList<>();
                Assignment t;
                while ((t = claim("bench-debounce", carried.isEmpty() ? 10 : 2)) != null) {
                  carried.add(t.notifications().size());
                  client.complete(t.leaseId(), "bench-debounce", null);
                }
                return carried;
              },
              pool);
      for (int i = 0; i < 10; i++) {
        client.notify(agent, Notification.of("burst-" + i));
        Thread.sleep(100);
      }
      List<Integer> carried = turns.get(30, TimeUnit.SECONDS);
      seen.add(carried.toString());
      if (carried.equals(List.of(10))) {
        exact++;
      }
    }
    return exact + " of " + bursts + " bursts became exactly one turn with all ten; turns: " + seen;
  }

  private static String summary(List<Double> values) {
    List<Double> sorted = new ArrayList<>(values);
    Collections.sort(sorted);
    return String.format(
        "n=%d p50=%.1f ms p99=%.1f ms max=%.1f ms",
        sorted.size(), pct(sorted, 0.5), pct(sorted, 0.99), sorted.get(sorted.size() - 1));
  }

  private static double pct(List<Double> sorted, double q) {
    int i = (int) Math.ceil(q * sorted.size()) - 1;
    return sorted.get(Math.max(0, Math.min(i, sorted.size() - 1)));
  }

  private static String loadAverage() {
    try {
      return Files.readString(Path.of("/proc/loadavg")).strip()
          + " ("
          + Runtime.getRuntime().availableProcessors()
          + " cores)";
    } catch (Exception e) {
      return "unknown";
    }
  }
}
