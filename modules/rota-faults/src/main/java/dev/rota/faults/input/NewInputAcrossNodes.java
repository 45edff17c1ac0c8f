package dev.rota.faults.input;

import dev.rota.client.AgentSpec;
import dev.rota.client.Assignment;
import dev.rota.client.ClaimResult;
import dev.rota.client.LeaseInput;
import dev.rota.client.Notification;
import dev.rota.client.NotifyResult;
import dev.rota.client.RotaClient;
import dev.rota.client.RunnerMode;
import dev.rota.faults.harness.FaultCluster;
import dev.rota.faults.harness.FaultPostgres;
import dev.rota.faults.harness.NodeProcess;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * The latency of new input during a turn on three node processes ({@code rota-server.jar} on one
 * PostgreSQL, the fault suite's {@link FaultCluster}), with the agent on another node than the one
 * the producer posts to, and the runner on the third: docs/performance.md, "New input during a
 * turn".
 *
 * <p>Each round registers a fresh agent, asks each node's shard region which node hosts it (the
 * host, {@link FaultCluster#placement}), and then sends every producer request to one of the two
 * other nodes and every runner request (the claims, the {@code input} long poll, the completion) to
 * the remaining one, so that the notification and the runner's answer both cross the cluster:
 *
 * <ul>
 *   <li>steer: from sending the notification to a steering agent until the runner's waiting {@code
 *       input} call returns it;
 *   <li>interrupt: from sending the notification until the runner's waiting {@code input} call says
 *       {@code interrupted}, and until a claim waiting on the runner's node is granted the agent's
 *       next turn.
 * </ul>
 *
 * Each time runs from sending the notification, so it includes the notification's own round trip
 * and commit: an upper bound of "accepted → returned". The mechanics are checked in every round
 * (the notification reaches the poll, the interrupt is told, the next turn is granted; the nodes
 * are three distinct ones); the times are only reported.
 *
 * <pre>
 * java -cp &lt;rota-faults classes and dependencies&gt; dev.rota.faults.input.NewInputAcrossNodes \
 *     modules/rota-server/target/rota-server.jar config/cluster-node.conf 200 target/new-input
 * </pre>
 *
 * or, through the test: {@code mvn -B verify -pl modules/rota-faults -am
 * -Dtest=NewInputAcrossNodesTest -Drota.faults.input-rounds=200}.
 */
public final class NewInputAcrossNodes implements AutoCloseable {
  private static final String CAP = "new-input-across-nodes";
  private static final String RUNNER = "input-runner";
  private static final String NEXT_RUNNER = "input-next-runner";

  /** How long the runner's poll is sent before the notification: the runner is usually waiting. */
  private static final Duration POLL_LEAD = Duration.ofMillis(50);

  /**
   * One round: where its requests went and what was measured.
   *
   * @param producer the node the notification was posted to
   * @param host the node whose shard region hosted the agent
   * @param runner the node of the runner's claims, {@code input} poll and completion
   * @param ms the time measured, in milliseconds
   * @param moved whether the agent was hosted elsewhere after the round (a rebalance)
   */
  public record Sample(int producer, int host, int runner, double ms, boolean moved) {}

  /** Every round's samples, by what was measured. */
  public record Result(
      List<Sample> steerAccepted,
      List<Sample> steer,
      List<Sample> interruptTold,
      List<Sample> nextTurn,
      String loadBefore,
      String loadAfter) {

    /** A Markdown table of the figures, with the routes and the load. */
    public String render() {
      StringBuilder out = new StringBuilder();
      out.append("| measured on 3 nodes | rounds | p50 | p99 | max |\n|---|---|---|---|---|\n");
      row(out, "steer: notification sent → its 202 (producer's node)", steerAccepted);
      row(out, "steer: notification sent → the runner's waiting `input` returns it", steer);
      row(
          out,
          "interrupt: notification sent → the runner's waiting `input` says so",
          interruptTold);
      row(out, "interrupt: notification sent → a waiting claim is granted the next turn", nextTurn);
      out.append(
          String.format(
              "%nrounds by route: %s; agents moved during a round: %d%n"
                  + "load before: %s; after: %s%n",
              routes(), moved(), loadBefore, loadAfter));
      return out.toString();
    }

    private String routes() {
      Map<String, Integer> count = new java.util.TreeMap<>();
      for (List<Sample> samples : List.of(steer, interruptTold)) {
        for (Sample s : samples) {
          count.merge(
              "producer node " + s.producer() + ", host " + s.host() + ", runner " + s.runner(),
              1,
              Integer::sum);
        }
      }
      StringBuilder out = new StringBuilder();
      count.forEach(
          (route, n) -> out.append(out.length() == 0 ? "" : "; ").append(route).append(" ×" + n));
      return out.toString();
    }

    private long moved() {
      return steer.stream().filter(Sample::moved).count()
          + interruptTold.stream().filter(Sample::moved).count();
    }

    private static void row(StringBuilder out, String what, List<Sample> samples) {
      List<Double> sorted = samples.stream().map(Sample::ms).sorted().toList();
      if (sorted.isEmpty()) {
        return;
      }
      out.append(
          String.format(
              "| %s | %d | %.1f ms | %.1f ms | %.1f ms |%n",
              what,
              sorted.size(),
              pct(sorted, 0.5),
              pct(sorted, 0.99),
              sorted.get(sorted.size() - 1)));
    }
  }

  private final FaultCluster cluster;
  private final Map<Integer, RotaClient> clients = new HashMap<>();
  private final ExecutorService pool = Executors.newCachedThreadPool();
  private int agents;

  public NewInputAcrossNodes(FaultCluster cluster) {
    if (cluster.nodes().size() != 3) {
      throw new IllegalArgumentException("three nodes, not " + cluster.nodes().size());
    }
    this.cluster = cluster;
    for (NodeProcess node : cluster.nodes()) {
      clients.put(
          node.index(),
          RotaClient.builder(URI.create("http://" + node.host() + ":" + node.httpPort()))
              .readTimeout(Duration.ofSeconds(10))
              .retries(0)
              .build());
    }
  }

  /**
   * Runs {@code warmUp} rounds of steer and of interrupt unmeasured, then {@code rounds} of each.
   *
   * @throws IllegalStateException when a round's mechanics fail (nothing steered into the poll, no
   *     interrupt told, no next turn granted)
   */
  public Result measure(int warmUp, int rounds) throws Exception {
    String before = loadAverage();
    for (int i = 0; i < warmUp; i++) {
      steer(i);
      interrupt(i);
    }
    List<Sample> accepted = new ArrayList<>();
    List<Sample> steer = new ArrayList<>();
    List<Sample> told = new ArrayList<>();
    List<Sample> next = new ArrayList<>();
    for (int i = 0; i < rounds; i++) {
      Sample[] s = steer(i);
      accepted.add(s[0]);
      steer.add(s[1]);
    }
    for (int i = 0; i < rounds; i++) {
      Sample[] s = interrupt(i);
      told.add(s[0]);
      next.add(s[1]);
    }
    return new Result(accepted, steer, told, next, before, loadAverage());
  }

  /** Which node a round's producer and runner use, given the agent's host. */
  private record Route(int producer, int host, int runner) {
    static Route around(int host, int round) {
      // Alternate which of the two other nodes takes the producer.
      int first = host % 3 + 1;
      int second = first % 3 + 1;
      return round % 2 == 0 ? new Route(first, host, second) : new Route(second, host, first);
    }
  }

  /** A fresh agent's first turn, claimed on the runner's node, and the route of its round. */
  private record Turn(Route route, Assignment lease) {}

  /** What the runner's {@code input} poll returned, and when. */
  private record Answer(long at, LeaseInput.NewInput input) {}

  private Turn turnOf(String prefix, String newInput, int round) {
    String agent = prefix + "-" + round + "-" + agents++;
    clients.get(1).registerAgent(agent, AgentSpec.create().capabilities(CAP).newInput(newInput));
    Route route = Route.around(hostOf(agent), round);
    clients.get(route.producer()).notify(agent, Notification.of("first"));
    RotaClient runner = clients.get(route.runner());
    for (int attempt = 0; attempt < 3; attempt++) {
      ClaimResult r = runner.claim(RUNNER, RunnerMode.NOTIFICATION, Set.of(CAP), 5, 60);
      if (r.assigned()) {
        if (!r.assignment().agentId().equals(agent)) {
          throw new IllegalStateException(
              "expected a turn of " + agent + ", got " + r.assignment().agentId());
        }
        return new Turn(route, r.assignment());
      }
    }
    throw new IllegalStateException("no turn of " + agent + " was granted");
  }

  private Sample[] steer(int round) throws Exception {
    Turn turn = turnOf("steer", "steer", round);
    Route route = turn.route();
    Assignment a = turn.lease();
    RotaClient runner = clients.get(route.runner());
    CompletableFuture<Answer> returned =
        CompletableFuture.supplyAsync(
            () -> {
              var in = LeaseInput.of(runner).await(a.leaseId(), RUNNER, 10);
              return new Answer(System.nanoTime(), in);
            },
            pool);
    Thread.sleep(POLL_LEAD.toMillis());
    long sent = System.nanoTime();
    NotifyResult result =
        clients.get(route.producer()).notify(a.agentId(), Notification.of("more"));
    long acknowledged = System.nanoTime();
    if (!result.steered()) {
      throw new IllegalStateException(a.agentId() + ": the notification was not steered");
    }
    Answer answer = returned.get(15, TimeUnit.SECONDS);
    LeaseInput.NewInput in = answer.input();
    if (in.notifications().stream()
        .noneMatch(n -> n.notificationId().equals(result.notificationId()))) {
      throw new IllegalStateException(
          a.agentId() + ": the input poll on node " + route.runner() + " returned " + in);
    }
    runner.complete(a.leaseId(), RUNNER, null);
    boolean moved = hostOf(a.agentId()) != route.host();
    return new Sample[] {
      sample(route, acknowledged - sent, moved), sample(route, answer.at() - sent, moved)
    };
  }

  private Sample[] interrupt(int round) throws Exception {
    Turn turn = turnOf("interrupt", "interrupt", round);
    Route route = turn.route();
    Assignment a = turn.lease();
    RotaClient runner = clients.get(route.runner());
    CompletableFuture<Long> told =
        CompletableFuture.supplyAsync(
            () -> {
              var in = LeaseInput.of(runner).await(a.leaseId(), RUNNER, 10);
              if (!in.interrupted()) {
                throw new IllegalStateException(a.agentId() + ": not told of the interrupt: " + in);
              }
              return System.nanoTime();
            },
            pool);
    CompletableFuture<Long> granted =
        CompletableFuture.supplyAsync(
            () -> {
              ClaimResult r =
                  runner.claim(NEXT_RUNNER, RunnerMode.NOTIFICATION, Set.of(CAP), 10, 60);
              long at = System.nanoTime();
              if (!r.assigned() || !r.assignment().agentId().equals(a.agentId())) {
                throw new IllegalStateException(a.agentId() + ": next turn not granted: " + r);
              }
              runner.complete(r.assignment().leaseId(), NEXT_RUNNER, null);
              return at;
            },
            pool);
    Thread.sleep(POLL_LEAD.toMillis());
    long sent = System.nanoTime();
    NotifyResult result =
        clients.get(route.producer()).notify(a.agentId(), Notification.of("stop"));
    if (!result.interrupted()) {
      throw new IllegalStateException(a.agentId() + ": the notification did not interrupt");
    }
    long toldAt = told.get(15, TimeUnit.SECONDS);
    long grantedAt = granted.get(15, TimeUnit.SECONDS);
    boolean moved = hostOf(a.agentId()) != route.host();
    return new Sample[] {
      sample(route, toldAt - sent, moved), sample(route, grantedAt - sent, moved)
    };
  }

  private static Sample sample(Route route, long nanos, boolean moved) {
    return new Sample(route.producer(), route.host(), route.runner(), nanos / 1e6, moved);
  }

  /** The node whose shard region hosts the agent (asked again briefly while none reports it). */
  private int hostOf(String agent) {
    for (int attempt = 0; attempt < 20; attempt++) {
      List<Integer> hosts =
          cluster.placement(List.of(agent)).entrySet().stream()
              .filter(e -> e.getValue().contains(agent))
              .map(Map.Entry::getKey)
              .toList();
      if (hosts.size() == 1) {
        return hosts.get(0);
      }
      sleep(Duration.ofMillis(100));
    }
    throw new IllegalStateException("no single node reports hosting " + agent);
  }

  private static double pct(List<Double> sorted, double q) {
    int i = (int) Math.ceil(q * sorted.size()) - 1;
    return sorted.get(Math.max(0, Math.min(i, sorted.size() - 1)));
  }

  /** {@code /proc/loadavg} and the cores, or "unknown". */
  public static String loadAverage() {
    try {
      return Files.readString(Path.of("/proc/loadavg")).strip()
          + " ("
          + Runtime.getRuntime().availableProcessors()
          + " cores)";
    } catch (Exception e) {
      return "unknown";
    }
  }

  private static void sleep(Duration duration) {
    try {
      Thread.sleep(duration.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public void close() {
    pool.shutdownNow();
    clients.values().forEach(RotaClient::close);
  }

  /**
   * {@code NewInputAcrossNodes <rota-server.jar> <cluster-node.conf> [rounds] [dir]}: starts
   * PostgreSQL and three nodes in {@code dir}, warms up 20 rounds, measures, prints the table.
   */
  public static void main(String[] args) throws Exception {
    Path jar = Path.of(args[0]).toAbsolutePath();
    Path config = Path.of(args[1]).toAbsolutePath();
    int rounds = args.length > 2 ? Integer.parseInt(args[2]) : 200;
    Path dir = args.length > 3 ? Path.of(args[3]) : Files.createTempDirectory("rota-input-3-");
    try (FaultPostgres db = FaultPostgres.start(dir.resolve("postgres"));
        FaultCluster cluster = FaultCluster.start(3, jar, config, db, dir.resolve("nodes"));
        NewInputAcrossNodes bench = new NewInputAcrossNodes(cluster)) {
      System.out.println(bench.measure(20, rounds).render());
    }
  }
}
