package dev.rota.bench.calls;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.typesafe.config.ConfigFactory;
import dev.rota.client.AgentSpec;
import dev.rota.client.Assignment;
import dev.rota.client.ClaimResult;
import dev.rota.client.Notification;
import dev.rota.client.RotaClient;
import dev.rota.client.RunnerMode;
import dev.rota.server.RotaNode;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * The latency of agents that work together, on one in-process node (embedded H2) over HTTP: the
 * SDK's client for agents, notifications and claims, and raw HTTP for completions that carry {@code
 * send} items (docs/api.md, "Agents that work together"). Every agent of a round is fresh and has a
 * capability of its own, so that each claim takes exactly the agent it waits for.
 *
 * <ul>
 *   <li>plain: a notification sent → a claim waiting for its agent is granted it (the baseline);
 *   <li>one hop: a completion with one send sent → a claim waiting for the target is granted it;
 *   <li>chain of depth 3, end to end: A's completion calls B; B's turn calls C; C's turn answers;
 *       B's turn that carries C's reply sends A "done"; until A's claim carries it (every claim and
 *       completion of the chain inside the time);
 *   <li>group of 10: a completion with ten calls in one group sent → the caller's next claim,
 *       waiting, carries all ten replies (ten runners answer the ten calls at once).
 * </ul>
 *
 * The mechanics are checked in every round (a {@link IllegalStateException} otherwise); the times
 * are only reported.
 *
 * <pre>
 * java -cp modules/rota-bench/target/rota-bench.jar dev.rota.bench.calls.CallLatency [rounds]
 * </pre>
 */
public final class CallLatency implements AutoCloseable {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int GROUP = 10;
  private static final int WAIT_SECONDS = 10;

  /** Each measurement's samples, in milliseconds. */
  public record Result(
      List<Double> plain,
      List<Double> hop,
      List<Double> chain,
      List<Double> group,
      String loadBefore,
      String loadAfter) {

    /** A Markdown table of the figures and the machine's load. */
    public String render(String where) {
      StringBuilder out = new StringBuilder();
      out.append("| measured ")
          .append(where)
          .append(" | rounds | p50 | p99 | max |\n|---|---|---|---|---|\n");
      row(out, "plain: notification sent → a waiting claim granted it", plain);
      row(out, "one hop: completion with a send sent → the target's waiting claim", hop);
      row(out, "chain of depth 3: A's call sent → A's claim carries B's \"done\"", chain);
      row(out, "group of 10: calls sent → the caller's claim carries all ten replies", group);
      out.append(String.format("%nload before: %s; after: %s%n", loadBefore, loadAfter));
      return out.toString();
    }

    private static void row(StringBuilder out, String what, List<Double> samples) {
      List<Double> sorted = samples.stream().sorted().toList();
      if (!sorted.isEmpty()) {
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
  }

  private final URI base;
  private final RotaClient client;
  private final HttpClient http =
      HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
  private final ExecutorService pool = Executors.newCachedThreadPool();

  public CallLatency(URI base) {
    this.base = base;
    this.client = RotaClient.builder(base).readTimeout(Duration.ofSeconds(30)).retries(0).build();
  }

  public static void main(String[] args) throws Exception {
    int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 200;
    try (RotaNode node = startNode();
        CallLatency bench = new CallLatency(uri(node))) {
      bench.awaitReady();
      System.out.println(bench.measure(rounds >= 100 ? 20 : 0, rounds).render("on one node"));
    }
  }

  /** One node in this JVM on an embedded H2 in a temporary directory, on free ports. */
  public static RotaNode startNode() throws IOException {
    Path dataDir = Files.createTempDirectory("rota-calls-");
    return RotaNode.start(
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
  }

  public static URI uri(RotaNode node) {
    return URI.create("http://127.0.0.1:" + node.httpPort() + "/");
  }

  /** Waits until the node accepts a registration (two minutes at most). */
  public void awaitReady() throws InterruptedException {
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

  /** {@code warmUp} unmeasured rounds of each, then {@code rounds} measured ones. */
  public Result measure(int warmUp, int rounds) throws Exception {
    String before = loadAverage();
    for (int i = 0; i < warmUp; i++) {
      plain("w" + i);
      hop("w" + i);
      chain("w" + i);
      group("w" + i);
    }
    List<Double> plain = new ArrayList<>();
    List<Double> hop = new ArrayList<>();
    List<Double> chain = new ArrayList<>();
    List<Double> group = new ArrayList<>();
    for (int i = 0; i < rounds; i++) {
      plain.add(plain("r" + i));
      hop.add(hop("r" + i));
      chain.add(chain("r" + i));
      group.add(group("r" + i));
    }
    return new Result(plain, hop, chain, group, before, loadAverage());
  }

  private double plain(String round) throws Exception {
    String target = agent("plain-" + round);
    CompletableFuture<Long> granted = grantedAt(target, "plain");
    Thread.sleep(20); // the claim is usually waiting when work arrives
    long sent = System.nanoTime();
    client.notify(target, Notification.of("plain"));
    return (granted.get(30, TimeUnit.SECONDS) - sent) / 1e6;
  }

  private double hop(String round) throws Exception {
    String sender = agent("hop-" + round + "-s");
    String target = agent("hop-" + round + "-t");
    Assignment turn = turnOf(sender);
    CompletableFuture<Long> granted = grantedAt(target, "hop");
    Thread.sleep(20);
    long sent = System.nanoTime();
    ArrayNode send = JSON.createArrayNode();
    item(send, target, "hop", null);
    complete(turn, null, send);
    return (granted.get(30, TimeUnit.SECONDS) - sent) / 1e6;
  }

  private double chain(String round) throws Exception {
    String a = agent("chain-" + round + "-a");
    String b = agent("chain-" + round + "-b");
    String c = agent("chain-" + round + "-c");
    Assignment first = turnOf(a);
    long sent = System.nanoTime();
    ArrayNode toB = JSON.createArrayNode();
    item(toB, b, "chain", JSON.createObjectNode().put("timeoutSeconds", 60));
    complete(first, null, toB);
    Assignment atB = claimUntil(b, n -> n.type().equals("chain"));
    ArrayNode toC = JSON.createArrayNode();
    item(toC, c, "chain-end", JSON.createObjectNode().put("timeoutSeconds", 60));
    complete(atB, JSON.createObjectNode().put("hop", "b"), toC);
    Assignment atC = claimUntil(c, n -> n.type().equals("chain-end"));
    complete(atC, JSON.createObjectNode().put("hop", "c"), null);
    Assignment back = claimUntil(b, n -> isReply(n, c, "answered"));
    ArrayNode done = JSON.createArrayNode();
    item(done, a, "done", null);
    complete(back, null, done);
    Assignment end = claimUntil(a, n -> n.type().equals("done"));
    long ended = System.nanoTime();
    complete(end, null, null);
    return (ended - sent) / 1e6;
  }

  private double group(String round) throws Exception {
    String caller = agent("group-" + round + "-caller");
    List<String> targets = new ArrayList<>();
    for (int i = 0; i < GROUP; i++) {
      targets.add(agent("group-" + round + "-t" + i));
    }
    Assignment turn = turnOf(caller);
    List<CompletableFuture<Long>> answered = new ArrayList<>();
    for (String target : targets) {
      answered.add(grantedAt(target, "fan"));
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
    complete(turn, null, calls);
    Assignment replies = claim(caller, WAIT_SECONDS);
    long ended = System.nanoTime();
    for (CompletableFuture<Long> f : answered) {
      f.get(30, TimeUnit.SECONDS);
    }
    long carried =
        replies == null
            ? 0
            : replies.notifications().stream().filter(n -> isReply(n, null, "answered")).count();
    if (carried != GROUP) {
      throw new IllegalStateException(
          "the caller's claim carried " + carried + " of " + GROUP + " replies: " + replies);
    }
    complete(replies, null, null);
    return (ended - sent) / 1e6;
  }

  /** A fresh agent whose only capability is its own id. */
  private String agent(String name) {
    String id = name + "-" + Long.toString(System.nanoTime(), 36);
    client.registerAgent(id, AgentSpec.create().capabilities(id));
    return id;
  }

  /** A turn of {@code agent}, given a notification for it. */
  private Assignment turnOf(String agent) {
    client.notify(agent, Notification.of("start"));
    return claimUntil(agent, n -> n.type().equals("start"));
  }

  /**
   * A claim waiting for {@code agent}, started now: completes the turn (which must carry a
   * notification of {@code type}) and answers when it was granted.
   */
  private CompletableFuture<Long> grantedAt(String agent, String type) {
    return CompletableFuture.supplyAsync(
        () -> {
          Assignment a = claim(agent, WAIT_SECONDS);
          long at = System.nanoTime();
          if (a == null || a.notifications().stream().noneMatch(n -> n.type().equals(type))) {
            throw new IllegalStateException("no turn of " + agent + " carrying " + type + ": " + a);
          }
          complete(a, JSON.createObjectNode().put("answeredBy", agent), null);
          return at;
        },
        pool);
  }

  /**
   * Claims turns of {@code agent} until one carries a notification {@code wanted} (five at most).
   */
  private Assignment claimUntil(String agent, Predicate<Assignment.Item> wanted) {
    for (int i = 0; i < 5; i++) {
      Assignment a = claim(agent, WAIT_SECONDS);
      if (a == null) {
        break;
      }
      if (a.notifications().stream().anyMatch(wanted)) {
        return a;
      }
      complete(a, null, null);
    }
    throw new IllegalStateException("no turn of " + agent + " carried what it waited for");
  }

  private Assignment claim(String agent, int waitSeconds) {
    ClaimResult r =
        client.claim("runner-" + agent, RunnerMode.NOTIFICATION, Set.of(agent), waitSeconds, 60);
    return r.assigned() ? r.assignment() : null;
  }

  private static boolean isReply(Assignment.Item n, String from, String status) {
    JsonNode payload = n.payload();
    JsonNode sender = payload.path("from");
    String fromAgent = sender.isObject() ? sender.path("agentId").asText() : sender.asText();
    return n.type().equals("rota.reply")
        && status.equals(payload.path("status").asText())
        && (from == null || from.equals(fromAgent));
  }

  private static void item(ArrayNode send, String target, String type, ObjectNode call) {
    ObjectNode item = send.addObject().put("agentId", target).put("type", type);
    item.putObject("payload").put("bench", type);
    if (call != null) {
      item.set("call", call);
    }
  }

  /** Completes {@code turn} over raw HTTP with its result and sends; anything but 200 throws. */
  private void complete(Assignment turn, JsonNode result, ArrayNode send) {
    ObjectNode body = JSON.createObjectNode().put("runnerId", "runner-" + turn.agentId());
    if (result != null) {
      body.set("result", result);
    }
    if (send != null) {
      body.set("send", send);
    }
    HttpRequest request =
        HttpRequest.newBuilder(base.resolve("/v1/leases/" + turn.leaseId() + "/complete"))
            .timeout(Duration.ofSeconds(30))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body.toString()))
            .build();
    try {
      HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
      if (response.statusCode() != 200) {
        throw new IllegalStateException(
            "completion answered " + response.statusCode() + ": " + response.body());
      }
    } catch (IOException e) {
      throw new IllegalStateException("completion unanswered", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }

  @Override
  public void close() {
    pool.shutdownNow();
    client.close();
  }

  private static double pct(List<Double> sorted, double q) {
    int i = (int) Math.ceil(q * sorted.size()) - 1;
    return sorted.get(Math.max(0, Math.min(i, sorted.size() - 1)));
  }

  static String loadAverage() {
    try {
      return Files.readString(Path.of("/proc/loadavg")).strip()
          + " ("
          + Runtime.getRuntime().availableProcessors()
          + " cores)";
    } catch (IOException e) {
      return "unknown";
    }
  }
}
