package dev.rota.faults.harness;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.Collectors;

/**
 * Three (or more) node processes on one PostgreSQL, each with its own loopback ports and all with
 * the same seed list. The cluster also keeps the set of <em>routable</em> nodes, the ones clients
 * send requests to: a node leaves it when a fault hits it (as a load balancer would take it out)
 * and comes back once it is ready again.
 */
public final class FaultCluster implements AutoCloseable {
  private static final Duration READY_TIMEOUT = Duration.ofSeconds(180);

  /** {@code pekko.cluster.sharding.number-of-shards}, which Rota leaves at Pekko's default. */
  private static final int NUMBER_OF_SHARDS = 1000;

  private final List<NodeProcess> nodes;
  private final List<NodeProcess> routable = new CopyOnWriteArrayList<>();
  private final RotaApi api = new RotaApi();

  private FaultCluster(List<NodeProcess> nodes) {
    this.nodes = nodes;
  }

  /**
   * Starts {@code size} nodes and waits until every one is ready and serves its API. The ports are
   * chosen free but only bound later by the nodes, so on a busy machine another process can take
   * one first; a node that then exits while starting makes the whole start be tried again, on new
   * ports (at most three times).
   */
  public static FaultCluster start(int size, Path jar, Path config, FaultPostgres db, Path dir) {
    return start(size, jar, config, db, dir, Layout.LOOPBACK);
  }

  /**
   * Where and how the nodes run.
   *
   * @param network a namespace per node (null: all on loopback)
   * @param clockOffsets the nodes (by index) whose wall clock runs off the machine's, and by how
   *     much (libfaketime)
   */
  public record Layout(NodeNetwork network, Map<Integer, Duration> clockOffsets) {
    public static final Layout LOOPBACK = new Layout(null, Map.of());
  }

  /**
   * {@link #start(int, Path, Path, FaultPostgres, Path)} with the nodes placed by {@code layout}.
   */
  public static FaultCluster start(
      int size, Path jar, Path config, FaultPostgres db, Path dir, Layout layout) {
    for (int attempt = 1; ; attempt++) {
      try {
        return startOnce(size, jar, config, db, dir, layout);
      } catch (NodeExited e) {
        if (attempt == 3) {
          throw e;
        }
        System.out.printf("[faults] %s; starting the nodes again on other ports%n", e.getMessage());
      }
    }
  }

  /** A node process ended while the cluster was starting. */
  static final class NodeExited extends IllegalStateException {
    NodeExited(String message) {
      super(message);
    }
  }

  private static FaultCluster startOnce(
      int size, Path jar, Path config, FaultPostgres db, Path dir, Layout layout) {
    if (!Files.isRegularFile(jar)) {
      throw new IllegalStateException(
          "the runnable jar "
              + jar
              + " does not exist; build it first (mvn -B package -pl modules/rota-server -am)");
    }
    List<int[]> ports = new ArrayList<>();
    for (int i = 0; i < size; i++) {
      ports.add(new int[] {freePort(), freePort(), freePort()});
    }
    NodeNetwork network = layout.network();
    List<String> hosts = new ArrayList<>();
    for (int i = 1; i <= size; i++) {
      hosts.add(network == null ? "127.0.0.1" : NodeNetwork.address(i));
    }
    String seeds =
        java.util.stream.IntStream.range(0, size)
            .mapToObj(i -> hosts.get(i) + ":" + ports.get(i)[2])
            .collect(Collectors.joining(","));
    List<NodeProcess> nodes = new ArrayList<>();
    for (int i = 0; i < size; i++) {
      Map<String, String> env = new HashMap<>();
      env.put("ROTA_CLUSTER_HOST", hosts.get(i));
      env.put("ROTA_CLUSTER_PORT", Integer.toString(ports.get(i)[2]));
      env.put("ROTA_SEED_NODES", seeds);
      env.put("ROTA_HTTP_PORT", Integer.toString(ports.get(i)[0]));
      env.put("ROTA_MANAGEMENT_PORT", Integer.toString(ports.get(i)[1]));
      env.put(
          "ROTA_DB_URL", network == null ? db.jdbcUrl() : db.jdbcUrl(NodeNetwork.bridgeAddress()));
      env.put("ROTA_DB_USER", "postgres");
      env.put("ROTA_DB_MAX_POOL_SIZE", "6");
      env.put("ROTA_DB_QUERY_POOL_SIZE", "2");
      if (network != null) {
        // The node's address exists only inside this machine's namespaces.
        env.put("ROTA_HTTP_INTERFACE", hosts.get(i));
        env.put("ROTA_HTTP_ALLOW_ANONYMOUS", "true");
      }
      Duration offset = layout.clockOffsets().get(i + 1);
      if (offset != null) {
        Faketime.requireInstalled();
        env.putAll(Faketime.environment(offset));
      }
      nodes.add(
          new NodeProcess(
              i + 1,
              hosts.get(i),
              network == null ? List.of() : network.launcher(i + 1),
              ports.get(i)[0],
              ports.get(i)[1],
              ports.get(i)[2],
              jar,
              config,
              dir,
              env));
    }
    FaultCluster cluster = new FaultCluster(nodes);
    try {
      // All at once, as a deployment starts them: the first seed node forms the cluster as soon
      // as the others have answered that they are not members yet, and they join it.
      nodes.forEach(NodeProcess::start);
      for (NodeProcess node : nodes) {
        cluster.awaitReady(node, size, false);
      }
    } catch (RuntimeException e) {
      cluster.close();
      throw e;
    }
    cluster.routable.addAll(nodes);
    return cluster;
  }

  public List<NodeProcess> nodes() {
    return nodes;
  }

  public NodeProcess node(int index) {
    return nodes.get(index - 1);
  }

  /** A node clients may use now, chosen at random; null if none is. */
  public NodeProcess pick() {
    List<NodeProcess> now = List.copyOf(routable);
    return now.isEmpty() ? null : now.get(ThreadLocalRandom.current().nextInt(now.size()));
  }

  public void unroute(NodeProcess node) {
    routable.remove(node);
  }

  public void route(NodeProcess node) {
    if (!routable.contains(node)) {
      routable.add(node);
    }
  }

  /** A restarted node: {@link #awaitReady(NodeProcess, int, boolean)}, every node a member. */
  public void awaitReady(NodeProcess node) {
    awaitReady(node, nodes.size(), true);
  }

  /**
   * Waits until the node's {@code /ready} answers 200, its API answers a request that needs the
   * cluster (an agent lookup; 404 is an answer), and it sees {@code members} members Up.
   *
   * @param rejoining the others already form a cluster (a restart): a node ready in a cluster of
   *     its own is then a second cluster on the same database, not the first of one forming
   * @throws IllegalStateException if it does not within three minutes, or the process ended, or it
   *     is ready in a cluster of its own while rejoining (split brain)
   */
  public void awaitReady(NodeProcess node, int members, boolean rejoining) {
    long deadline = System.nanoTime() + READY_TIMEOUT.toNanos();
    while (System.nanoTime() < deadline) {
      // While the cluster forms, a node that ended (a port taken by another process) keeps the
      // others from ever seeing every member Up: start again rather than wait out the timeout.
      for (NodeProcess starting : rejoining ? List.of(node) : nodes) {
        if (!starting.alive()) {
          throw new NodeExited(
              starting + " exited with " + starting.awaitExit(Duration.ZERO) + " while starting");
        }
      }
      if (ready(node)) {
        int up = upMembers(node);
        if (up >= members) {
          return;
        }
        if (rejoining
            && up == 1
            && members > 1
            && nodes.stream().anyMatch(n -> n != node && n.alive())) {
          throw new IllegalStateException(
              node + " is ready in a cluster of its own while other nodes run: split brain");
        }
      }
      sleep(Duration.ofMillis(250));
    }
    throw new IllegalStateException(node + " was not ready within " + READY_TIMEOUT);
  }

  private boolean ready(NodeProcess node) {
    try {
      if (api.send(node.host(), node.managementPort(), "GET", "/ready", null, Duration.ofSeconds(2))
              .status()
          != 200) {
        return false;
      }
      int status =
          api.send(
                  node.host(),
                  node.httpPort(),
                  "GET",
                  "/v1/agents/ready-probe",
                  null,
                  Duration.ofSeconds(3))
              .status();
      return status == 200 || status == 404;
    } catch (IOException e) {
      return false;
    }
  }

  /** The members the node's management reports Up, or 0 if it does not answer. */
  private int upMembers(NodeProcess node) {
    try {
      RotaApi.Response response =
          api.send(
              node.host(),
              node.managementPort(),
              "GET",
              "/cluster/members",
              null,
              Duration.ofSeconds(2));
      int up = 0;
      if (response.ok()) {
        for (var member : response.body().path("members")) {
          if ("Up".equals(member.path("status").asText())) {
            up++;
          }
        }
      }
      return up;
    } catch (IOException e) {
      return 0;
    }
  }

  /**
   * Which node hosts which of {@code agents} now: each running node's shard region reports its
   * shards of agents ({@code /cluster/shards/Agent} of Pekko Management), and an agent's shard is
   * Pekko's default for its id ({@code |hashCode| % 1000}, the number of shards Rota keeps). Nodes
   * that do not answer within two seconds report nothing.
   */
  public Map<Integer, List<String>> placement(List<String> agents) {
    Map<Integer, List<String>> hosted = new java.util.TreeMap<>();
    for (NodeProcess node : nodes) {
      if (!node.alive()) {
        continue;
      }
      try {
        RotaApi.Response response =
            api.send(
                node.host(),
                node.managementPort(),
                "GET",
                "/cluster/shards/Agent",
                null,
                Duration.ofSeconds(2));
        if (!response.ok()) {
          continue;
        }
        java.util.Set<String> shards = new java.util.HashSet<>();
        response.body().path("regions").forEach(r -> shards.add(r.path("shardId").asText()));
        hosted.put(node.index(), agents.stream().filter(a -> shards.contains(shardOf(a))).toList());
      } catch (IOException e) {
        // No answer: the node is stopped or busy; the checker falls back for its fault.
      }
    }
    return hosted;
  }

  private static String shardOf(String agentId) {
    return Integer.toString(Math.abs(agentId.hashCode()) % NUMBER_OF_SHARDS);
  }

  static int freePort() {
    try (ServerSocket socket = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new IllegalStateException("no free loopback port: " + e, e);
    }
  }

  static void sleep(Duration duration) {
    try {
      Thread.sleep(duration.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public void close() {
    for (NodeProcess node : nodes) {
      if (node.alive()) {
        try {
          node.thaw();
          node.terminate();
        } catch (RuntimeException e) {
          // Already gone.
        }
      }
    }
    for (NodeProcess node : nodes) {
      if (node.alive() && node.awaitExit(Duration.ofSeconds(20)).isEmpty()) {
        node.destroy();
      }
    }
  }
}
