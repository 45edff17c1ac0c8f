package dev.rota.faults.calls;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.rota.client.AgentSpec;
import dev.rota.client.Assignment;
import dev.rota.client.ClaimResult;
import dev.rota.client.Notification;
import dev.rota.client.RotaClient;
import dev.rota.client.RunnerMode;
import dev.rota.faults.harness.FaultCluster;
import dev.rota.faults.harness.FaultPostgres;
import dev.rota.faults.harness.NodeProcess;
import dev.rota.faults.harness.RotaApi;
import dev.rota.faults.input.NewInputAcrossNodes;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * The latency of agents that work together on three node processes ({@code rota-server.jar} on one
 * PostgreSQL, the fault suite's {@link FaultCluster}), the runner on another node than the agents'
 * hosts: the same four measurements as rota-bench's {@code CallLatency} on one node (plain
 * notification and one hop to a waiting claim, a chain of depth 3 end to end, a group of 10 until
 * the caller's claim carries all ten replies).
 *
 * <p>Each round registers fresh agents (each with a capability of its own, so that a claim takes
 * exactly the agent it waits for), asks the shard regions which node hosts each ({@link
 * FaultCluster#placement}), and sends every claim and completion to a node that hosts none of the
 * round's agents when there is one (always for plain and one hop), else one that does not host the
 * agent whose turn starts the round; a plain notification is posted to the third node. The
 * mechanics are checked in every round; the times are only reported.
 */
public final class CallsAcrossNodes implements AutoCloseable {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int GROUP = 10;
  private static final int WAIT_SECONDS = 10;
  private static final Duration TIMEOUT = Duration.ofSeconds(30);

  /**
   * One round: the runner's node, whether it hosted none of the round's agents, and the time.
   *
   * @param ms from sending the notification or completion to the end of the measurement
   */
  public record Sample(int runner, boolean away, double ms) {}

  /** Every round's samples, by what was measured. */
  public record Result(
      List<Sample> plain,
      List<Sample> hop,
      List<Sample> chain,
      List<Sample> group,
      String loadBefore,
      String loadAfter) {

    public String render() {
      StringBuilder out = new StringBuilder();
      out.append(
          "| measured on 3 nodes | rounds | runner away from every agent | p50 | p99 | max |\n");
      out.append("|---|---|---|---|---|---|\n");
      row(out, "plain: notification sent → a waiting claim granted it", plain);
      row(out, "one hop: completion with a send sent → the target's waiting claim", hop);
      row(out, "chain of depth 3: A's call sent → A's claim carries B's \"done\"", chain);
      row(out, "group of 10: calls sent → the caller's claim carries all ten replies", group);
      out.append(String.format("%nload before: %s; after: %s%n", loadBefore, loadAfter));
      return out.toString();
    }

    private static void row(StringBuilder out, String what, List<Sample> samples) {
      List<Double> sorted = samples.stream().map(Sample::ms).sorted().toList();
      if (sorted.isEmpty()) {
        return;
      }
      out.append(
          String.format(
              "| %s | %d | %d | %.1f ms | %.1f ms | %.1f ms |%n",
              what,
              sorted.size(),
              samples.stream().filter(Sample::away).count(),
              pct(sorted, 0.5),
              pct(sorted, 0.99),
              sorted.get(sorted.size() - 1)));
    }
  }

  private final FaultCluster cluster;
  private final Map<Integer, RotaClient> clients = new HashMap<>();
  private final RotaApi api = new RotaApi();
  private final ExecutorService pool = Executors.newCachedThreadPool();
  private int agents;

  public CallsAcrossNodes(FaultCluster cluster) {
    if (cluster.nodes().size() != 3) {
      throw new IllegalArgumentException("three nodes, not " + cluster.nodes().size());
    }
    this.cluster = cluster;
    for (NodeProcess node : cluster.nodes()) {
      clients.put(
          node.index(),
          RotaClient.builder(URI.create("http://" + node.host() + ":" + node.httpPort()))
              .readTimeout(TIMEOUT)
              .retries(0)
              .build());
    }
  }

  /**
   * Runs {@code warmUp} unmeasured rounds of each, then {@code rounds} measured ones.
   *
   * @throws IllegalStateException when a round's mechanics fail
   */
  public Result measure(int warmUp, int rounds) throws Exception {
    String before = NewInputAcrossNodes.loadAverage();
    for (int i = 0; i < warmUp; i++) {
      plain();
      hop();
      chain();
      group();
    }
    List<Sample> plain = new ArrayList<>();
    List<Sample> hop = new ArrayList<>();
    List<Sample> chain = new ArrayList<>();
    List<Sample> group = new ArrayList<>();
    for (int i = 0; i < rounds; i++) {
      plain.add(plain());
      hop.add(hop());
      chain.add(chain());
      group.add(group());
    }
    return new Result(plain, hop, chain, group, before, NewInputAcrossNodes.loadAverage());
  }

  private Sample plain() throws Exception {
    String target = agent("plain");
    int runner = runnerAwayFrom(List.of(target), target);
    int producer = 6 - runner - hostOf(target);
    CompletableFuture<Long> granted = grantedAt(runner, target, "plain");
    Thread.sleep(20);
    long sent = System.nanoTime();
    clients.get(producer).notify(target, Notification.of("plain"));
    return sample(runner, List.of(target), granted.get(30, TimeUnit.SECONDS) - sent);
  }

  private Sample hop() throws Exception {
    String sender = agent("hop-s");
    String target = agent("hop-t");
    int runner = runnerAwayFrom(List.of(sender, target), sender);
    Assignment turn = turnOf(runner, sender);
    CompletableFuture<Long> granted = grantedAt(runner, target, "hop");
    Thread.sleep(20);
    long sent = System.nanoTime();
    ArrayNode send = JSON.createArrayNode();
    item(send, target, "hop", null);
    complete(runner, turn, null, send);
    return sample(runner, List.of(sender, target), granted.get(30, TimeUnit.SECONDS) - sent);
  }

  private Sample chain() throws Exception {
    String a = agent("chain-a");
    String b = agent("chain-b");
    String c = agent("chain-c");
    int runner = runnerAwayFrom(List.of(a, b, c), a);
    Assignment first = turnOf(runner, a);
    long sent = System.nanoTime();
    ArrayNode toB = JSON.createArrayNode();
    item(toB, b, "chain", JSON.createObjectNode().put("timeoutSeconds", 60));
    complete(runner, first, null, toB);
    Assignment atB = claimUntil(runner, b, n -> n.type().equals("chain"));
    ArrayNode toC = JSON.createArrayNode();
    item(toC, c, "chain-end", JSON.createObjectNode().put("timeoutSeconds", 60));
    complete(runner, atB, JSON.createObjectNode().put("hop", "b"), toC);
    Assignment atC = claimUntil(runner, c, n -> n.type().equals("chain-end"));
    complete(runner, atC, JSON.createObjectNode().put("hop", "c"), null);
    Assignment back = claimUntil(runner, b, n -> isReply(n, c));
    ArrayNode done = JSON.createArrayNode();
    item(done, a, "done", null);
    complete(runner, back, null, done);
    Assignment end = claimUntil(runner, a, n -> n.type().equals("done"));
    long ended = System.nanoTime();
    complete(runner, end, null, null);
    return sample(runner, List.of(a, b, c), ended - sent);
  }

  private Sample group() throws Exception {
    String caller = agent("group-caller");
    List<String> targets = new ArrayList<>();
    for (int i = 0; i < GROUP; i++) {
      targets.add(agent("group-t" + i));
    }
    List<String> all = new ArrayList<>(targets);
    all.add(caller);
    int runner = runnerAwayFrom(all, caller);
    Assignment turn = turnOf(runner, caller);
    List<CompletableFuture<Long>> answered = new ArrayList<>();
    for (String target : targets) {
      answered.add(grantedAt(runner, target, "fan"));
    }
    Thread.sleep(20);
    long sent = System.nanoTime();
    ArrayNode calls = JSON.createArrayNode();
    for (String target : targets) {
      item(
          calls,
          target,
          "fan",
          JSON.createObjectNode().put("timeoutSeconds", 60).put("group", "g"));
    }
    complete(runner, turn, null, calls);
    Assignment replies = claim(runner, caller);
    long ended = System.nanoTime();
    for (CompletableFuture<Long> f : answered) {
      f.get(30, TimeUnit.SECONDS);
    }
    long carried =
        replies == null
            ? 0
            : replies.notifications().stream().filter(n -> isReply(n, null)).count();
    if (carried != GROUP) {
      throw new IllegalStateException(
          "the caller's claim carried " + carried + " of " + GROUP + " replies: " + replies);
    }
    complete(runner, replies, null, null);
    return sample(runner, all, ended - sent);
  }

  private Sample sample(int runner, List<String> agents, long nanos) {
    boolean away = agents.stream().noneMatch(a -> hostOf(a) == runner);
    return new Sample(runner, away, nanos / 1e6);
  }

  /** A node hosting none of {@code agents}, else one that does not host {@code first}. */
  private int runnerAwayFrom(List<String> agents, String first) {
    Set<Integer> hosts = new HashSet<>();
    agents.forEach(a -> hosts.add(hostOf(a)));
    for (int node = 1; node <= 3; node++) {
      if (!hosts.contains(node)) {
        return node;
      }
    }
    return hostOf(first) % 3 + 1;
  }

  /** A fresh agent whose only capability is its own id, registered through node 1. */
  private String agent(String name) {
    String id = name + "-" + agents++ + "-" + Long.toString(System.nanoTime(), 36);
    clients.get(1).registerAgent(id, AgentSpec.create().capabilities(id));
    return id;
  }

  private Assignment turnOf(int runner, String agent) {
    clients.get(runner).notify(agent, Notification.of("start"));
    return claimUntil(runner, agent, n -> n.type().equals("start"));
  }

  private CompletableFuture<Long> grantedAt(int runner, String agent, String type) {
    return CompletableFuture.supplyAsync(
        () -> {
          Assignment a = claim(runner, agent);
          long at = System.nanoTime();
          if (a == null || a.notifications().stream().noneMatch(n -> n.type().equals(type))) {
            throw new IllegalStateException("no turn of " + agent + " carrying " + type + ": " + a);
          }
          complete(runner, a, JSON.createObjectNode().put("answeredBy", agent), null);
          return at;
        },
        pool);
  }

  private Assignment claimUntil(int runner, String agent, Predicate<Assignment.Item> wanted) {
    for (int i = 0; i < 5; i++) {
      Assignment a = claim(runner, agent);
      if (a == null) {
        break;
      }
      if (a.notifications().stream().anyMatch(wanted)) {
        return a;
      }
      complete(runner, a, null, null);
    }
    throw new IllegalStateException("no turn of " + agent + " carried what it waited for");
  }

  private Assignment claim(int runner, String agent) {
    ClaimResult r =
        clients
            .get(runner)
            .claim("runner-" + agent, RunnerMode.NOTIFICATION, Set.of(agent), WAIT_SECONDS, 60);
    return r.assigned() ? r.assignment() : null;
  }

  private static boolean isReply(Assignment.Item n, String from) {
    JsonNode sender = n.payload().path("from");
    String fromAgent = sender.isObject() ? sender.path("agentId").asText() : sender.asText();
    return n.type().equals("rota.reply")
        && "answered".equals(n.payload().path("status").asText())
        && (from == null || from.equals(fromAgent));
  }

  private static void item(ArrayNode send, String target, String type, ObjectNode call) {
    ObjectNode item = send.addObject().put("agentId", target).put("type", type);
    item.putObject("payload").put("bench", type);
    if (call != null) {
      item.set("call", call);
    }
  }

  /** Completes {@code turn} on the runner's node over raw HTTP; anything but 200 throws. */
  private void complete(int runner, Assignment turn, JsonNode result, ArrayNode send) {
    NodeProcess node = cluster.node(runner);
    try {
      RotaApi.Response response =
          api.complete(
              node.host(),
              node.httpPort(),
              turn.leaseId(),
              "runner-" + turn.agentId(),
              result,
              send,
              TIMEOUT);
      if (response.status() != 200) {
        throw new IllegalStateException(
            "completion answered " + response.status() + ": " + response.body());
      }
    } catch (IOException e) {
      throw new IllegalStateException("completion unanswered", e);
    }
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
      try {
        Thread.sleep(100);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    throw new IllegalStateException("no single node reports hosting " + agent);
  }

  private static double pct(List<Double> sorted, double q) {
    int i = (int) Math.ceil(q * sorted.size()) - 1;
    return sorted.get(Math.max(0, Math.min(i, sorted.size() - 1)));
  }

  @Override
  public void close() {
    pool.shutdownNow();
    clients.values().forEach(RotaClient::close);
  }

  /**
   * {@code CallsAcrossNodes <rota-server.jar> <cluster-node.conf> [rounds] [dir]}: starts
   * PostgreSQL and three nodes in {@code dir}, warms up 20 rounds, measures, prints the table.
   */
  public static void main(String[] args) throws Exception {
    Path jar = Path.of(args[0]).toAbsolutePath();
    Path config = Path.of(args[1]).toAbsolutePath();
    int rounds = args.length > 2 ? Integer.parseInt(args[2]) : 200;
    Path dir = args.length > 3 ? Path.of(args[3]) : Files.createTempDirectory("rota-calls-3-");
    try (FaultPostgres db = FaultPostgres.start(dir.resolve("postgres"));
        FaultCluster cluster = FaultCluster.start(3, jar, config, db, dir.resolve("nodes"));
        CallsAcrossNodes bench = new CallsAcrossNodes(cluster)) {
      System.out.println(bench.measure(20, rounds).render());
    }
  }
}
