package dev.rota.faults.fairness;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.rota.client.AgentSpec;
import dev.rota.client.Assignment;
import dev.rota.client.ClaimResult;
import dev.rota.client.Notification;
import dev.rota.client.RotaClient;
import dev.rota.client.RunnerMode;
import dev.rota.faults.harness.FaultCluster;
import dev.rota.faults.harness.FaultPostgres;
import dev.rota.faults.harness.NodeProcess;
import dev.rota.faults.input.NewInputAcrossNodes;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * The rule across tenants on three node processes ({@code rota-server.jar} on one PostgreSQL, the
 * fault suite's {@link FaultCluster}): docs/performance.md, "Tenants on three nodes".
 *
 * <ul>
 *   <li>tenants {@code acme} (weight 3) and {@code beta} (weight 1), {@value #FLOODED} agents each,
 *       flooded: each agent starts with {@value #BACKLOG} notifications, a turn carries one ({@code
 *       rota.agent.max-notifications-per-activation = 1}), and each turn's end sends its tenant one
 *       more, so both tenants always have inbox work however fast the runners go;
 *   <li>tenant {@code quiet} (weight 1), {@value #QUIET_AGENTS} agents, one notification every
 *       {@value #QUIET_EVERY_MILLIS} ms, each timed from being sent to the claim that carries it;
 *   <li>{@value #RUNNERS} runners in notification mode, spread evenly over the three nodes, each
 *       turn held {@value #TURN_MILLIS} ms; notifications go to a node drawn at random, and the
 *       agents live wherever Cluster Sharding put them.
 * </ul>
 *
 * The shares are what the runners measured: the runner time (claim answered → completion answered)
 * of each tenant's turns inside the window. Each node's {@code GET /admin/tenants} at the end of
 * the window is reported beside them.
 *
 * <pre>
 * java -cp &lt;rota-faults classes and dependencies&gt; dev.rota.faults.fairness.FairnessAcrossNodes \
 *     modules/rota-server/target/rota-server.jar config/cluster-node.conf 60 target/fairness
 * </pre>
 *
 * or, through the test: {@code mvn -B verify -pl modules/rota-faults -am
 * -Dtest=FairnessAcrossNodesTest -Drota.faults.fairness-seconds=60}.
 */
public final class FairnessAcrossNodes implements AutoCloseable {
  static final String ACME = "acme";
  static final String BETA = "beta";
  static final String QUIET = "quiet";
  private static final String CAP = "fairness";
  private static final int FLOODED = 20;
  private static final int BACKLOG = 4;
  private static final int QUIET_AGENTS = 5;
  private static final long QUIET_EVERY_MILLIS = 400;
  private static final int RUNNERS = 6;
  private static final long TURN_MILLIS = 20;

  private final FaultCluster cluster;
  private final List<Integer> nodes = new ArrayList<>();
  private final Map<Integer, Map<String, RotaClient>> producers = new HashMap<>();
  private final Map<Integer, RotaClient> runnersClients = new HashMap<>();
  private final ExecutorService pool = Executors.newCachedThreadPool();
  private final JsonNodeFactory json = JsonNodeFactory.instance;

  private volatile boolean running = true;
  private volatile long windowStart = Long.MAX_VALUE;
  private volatile long windowEnd = Long.MAX_VALUE;
  private final Map<String, LongAdder> runnerNanos = new ConcurrentHashMap<>();
  private final Map<String, LongAdder> turns = new ConcurrentHashMap<>();
  private final Map<Integer, LongAdder> turnsByNode = new ConcurrentHashMap<>();
  private final Map<Long, Long> quietSent = new ConcurrentHashMap<>();
  private final List<Double> quietMillis =
      java.util.Collections.synchronizedList(new ArrayList<>());
  private final List<Double> quietAcceptMillis =
      java.util.Collections.synchronizedList(new ArrayList<>());
  private final AtomicLong quietTokens = new AtomicLong();
  private final LongAdder errors = new LongAdder();

  public FairnessAcrossNodes(FaultCluster cluster) {
    this.cluster = cluster;
    for (NodeProcess node : cluster.nodes()) {
      URI uri = URI.create("http://" + node.host() + ":" + node.httpPort());
      nodes.add(node.index());
      Map<String, RotaClient> byTenant = new HashMap<>();
      for (String tenant : List.of(ACME, BETA, QUIET)) {
        byTenant.put(tenant, client(uri).tenant(tenant).build());
      }
      producers.put(node.index(), byTenant);
      runnersClients.put(node.index(), client(uri).build());
    }
  }

  private static RotaClient.Builder client(URI uri) {
    return RotaClient.builder(uri).readTimeout(Duration.ofSeconds(15)).retries(0);
  }

  /**
   * The nodes' configuration for the run: {@code base} with the three tenants and one notification
   * per turn, written in {@code dir}.
   */
  public static Path config(Path base, Path dir) {
    try {
      Files.createDirectories(dir);
      Path file = dir.resolve("fairness-node.conf");
      Files.writeString(
          file,
          "include file(\""
              + base.toAbsolutePath()
              + "\")\nrota.tenants { acme { weight = 3 }, beta { weight = 1 }, quiet { weight = 1 }"
              + " }\nrota.agent.max-notifications-per-activation = 1\n");
      return file.toAbsolutePath();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the fairness node configuration in " + dir, e);
    }
  }

  /** Registers and floods the agents, runs {@code warmUp} unmeasured, then {@code window}. */
  public FairnessResult run(Duration warmUp, Duration window) throws Exception {
    List<String> agents = register();
    List<Thread> threads = new ArrayList<>();
    for (int r = 0; r < RUNNERS; r++) {
      int node = nodes.get(r % nodes.size());
      String runnerId = "fair-runner-" + r;
      threads.add(new Thread(() -> runner(runnerId, node), runnerId));
    }
    threads.add(new Thread(this::quietProducer, "quiet-producer"));
    threads.forEach(Thread::start);
    Thread.sleep(warmUp.toMillis());
    String before = NewInputAcrossNodes.loadAverage();
    windowStart = System.nanoTime();
    Thread.sleep(window.toMillis());
    windowEnd = System.nanoTime();
    Map<Integer, Map<String, double[]>> views = adminViews();
    // Quiet notifications sent late in the window get a moment to be claimed.
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (unclaimedInWindow() > 0 && System.nanoTime() < deadline) {
      Thread.sleep(100);
    }
    running = false;
    for (Thread t : threads) {
      t.join(30_000);
    }
    Map<Integer, Long> hosts = new TreeMap<>();
    cluster.placement(agents).forEach((node, hosted) -> hosts.put(node, (long) hosted.size()));
    return new FairnessResult(
        (windowEnd - windowStart) / 1e9,
        totals(runnerNanos, 1_000_000),
        totals(turns, 1),
        totals(turnsByNode, 1),
        hosts,
        List.copyOf(quietMillis),
        List.copyOf(quietAcceptMillis),
        unclaimedInWindow(),
        errors.sum(),
        views,
        before,
        NewInputAcrossNodes.loadAverage());
  }

  private List<String> register() throws Exception {
    List<String> agents = new ArrayList<>();
    List<java.util.concurrent.Future<?>> done = new ArrayList<>();
    for (String tenant : List.of(ACME, BETA, QUIET)) {
      int count = tenant.equals(QUIET) ? QUIET_AGENTS : FLOODED;
      for (int i = 0; i < count; i++) {
        String agent = tenant + "-" + i;
        agents.add(tenant + "/" + agent);
        int node = nodes.get(i % nodes.size());
        done.add(
            pool.submit(
                () -> {
                  RotaClient c = producers.get(node).get(tenant);
                  c.registerAgent(agent, AgentSpec.create().capabilities(CAP));
                  if (!tenant.equals(QUIET)) {
                    for (int n = 0; n < BACKLOG; n++) {
                      c.notify(agent, Notification.of("flood"));
                    }
                  }
                  return null;
                }));
      }
    }
    for (var f : done) {
      f.get(60, TimeUnit.SECONDS);
    }
    return agents;
  }

  private void runner(String runnerId, int node) {
    RotaClient client = runnersClients.get(node);
    while (running) {
      try {
        ClaimResult r = client.claim(runnerId, RunnerMode.NOTIFICATION, Set.of(CAP), 2, 30);
        if (!r.assigned()) {
          continue;
        }
        long claimed = System.nanoTime();
        Assignment a = r.assignment();
        String id = a.agentId().substring(a.agentId().indexOf('/') + 1);
        String tenant = id.substring(0, id.indexOf('-'));
        if (tenant.equals(QUIET)) {
          for (Assignment.Item item : a.notifications()) {
            JsonNode token = item.payload() == null ? null : item.payload().get("t");
            Long sent = token == null ? null : quietSent.remove(token.asLong());
            if (sent != null && sent >= windowStart && sent <= windowEnd) {
              double ms = (claimed - sent) / 1e6;
              quietMillis.add(ms);
              if (ms > 1_000) {
                System.out.printf(
                    "[fairness] quiet notification %s to %s claimed on node %d after %.0f ms%n",
                    token, a.agentId(), node, ms);
              }
            }
          }
        }
        Thread.sleep(TURN_MILLIS);
        client.complete(a.leaseId(), runnerId, null);
        long ended = System.nanoTime();
        long from = Math.max(claimed, windowStart);
        long to = Math.min(ended, windowEnd);
        if (to > from) {
          runnerNanos.computeIfAbsent(tenant, t -> new LongAdder()).add(to - from);
        }
        if (claimed >= windowStart && claimed < windowEnd) {
          turns.computeIfAbsent(tenant, t -> new LongAdder()).increment();
          turnsByNode.computeIfAbsent(node, n -> new LongAdder()).increment();
        }
        if (!tenant.equals(QUIET)) {
          pool.execute(() -> flood(tenant));
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      } catch (RuntimeException e) {
        errors.increment();
      }
    }
  }

  /** One more notification for a flooded tenant, to one of its agents, through any node. */
  private void flood(String tenant) {
    try {
      int agent = ThreadLocalRandom.current().nextInt(FLOODED);
      producers.get(anyNode()).get(tenant).notify(tenant + "-" + agent, Notification.of("flood"));
    } catch (RuntimeException e) {
      errors.increment();
    }
  }

  private void quietProducer() {
    for (int i = 0; running; i++) {
      long token = quietTokens.incrementAndGet();
      String agent = QUIET + "-" + (i % QUIET_AGENTS);
      try {
        long sent = System.nanoTime();
        quietSent.put(token, sent);
        producers
            .get(anyNode())
            .get(QUIET)
            .notify(agent, Notification.of("quiet", json.objectNode().put("t", token)));
        if (sent >= windowStart && sent <= windowEnd) {
          quietAcceptMillis.add((System.nanoTime() - sent) / 1e6);
        }
        pool.execute(() -> explainIfWaiting(token, agent, sent));
      } catch (RuntimeException e) {
        quietSent.remove(token);
        errors.increment();
      }
      try {
        Thread.sleep(QUIET_EVERY_MILLIS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }

  /** A quiet notification still unclaimed a second after it was sent: what its agent says. */
  private void explainIfWaiting(long token, String agent, long sent) {
    try {
      Thread.sleep(1_000);
      if (quietSent.containsKey(token)) {
        int node = anyNode();
        System.out.printf(
            "[fairness] quiet notification %d to %s unclaimed after %.0f ms; node %d explains: %s%n",
            token,
            agent,
            (System.nanoTime() - sent) / 1e6,
            node,
            producers.get(node).get(QUIET).explain(agent));
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (RuntimeException e) {
      System.out.printf("[fairness] explaining %s failed: %s%n", agent, e);
    }
  }

  private int unclaimedInWindow() {
    long from = windowStart;
    long to = windowEnd;
    return (int) quietSent.values().stream().filter(s -> s >= from && s <= to).count();
  }

  /** Each node's {@code GET /admin/tenants}: tenant → {actual, fair}. */
  private Map<Integer, Map<String, double[]>> adminViews() {
    Map<Integer, Map<String, double[]>> views = new TreeMap<>();
    for (int node : nodes) {
      Map<String, double[]> shares = new TreeMap<>();
      try {
        for (JsonNode t : runnersClients.get(node).tenants().list().path("tenants")) {
          String name = t.path("tenant").asText();
          if (List.of(ACME, BETA, QUIET).contains(name)) {
            shares.put(
                name,
                new double[] {t.at("/share/actual").asDouble(), t.at("/share/fair").asDouble()});
          }
        }
      } catch (RuntimeException e) {
        errors.increment();
      }
      views.put(node, shares);
    }
    return views;
  }

  private int anyNode() {
    return nodes.get(ThreadLocalRandom.current().nextInt(nodes.size()));
  }

  private static <K> Map<K, Long> totals(Map<K, LongAdder> adders, long divisor) {
    Map<K, Long> out = new TreeMap<>();
    adders.forEach((k, v) -> out.put(k, v.sum() / divisor));
    return out;
  }

  @Override
  public void close() {
    running = false;
    pool.shutdownNow();
    producers.values().forEach(m -> m.values().forEach(RotaClient::close));
    runnersClients.values().forEach(RotaClient::close);
  }

  /**
   * {@code FairnessAcrossNodes <rota-server.jar> <cluster-node.conf> [seconds] [dir]}: starts
   * PostgreSQL and three nodes in {@code dir}, warms up 10 s, measures, prints the table.
   */
  public static void main(String[] args) throws Exception {
    Path jar = Path.of(args[0]).toAbsolutePath();
    Path dir = args.length > 3 ? Path.of(args[3]) : Files.createTempDirectory("rota-fairness-");
    Path config = config(Path.of(args[1]), dir);
    int seconds = args.length > 2 ? Integer.parseInt(args[2]) : 60;
    try (FaultPostgres db = FaultPostgres.start(dir.resolve("postgres"));
        FaultCluster cluster = FaultCluster.start(3, jar, config, db, dir.resolve("nodes"));
        FairnessAcrossNodes run = new FairnessAcrossNodes(cluster)) {
      System.out.println(run.run(Duration.ofSeconds(10), Duration.ofSeconds(seconds)).render());
    }
  }
}
