package dev.rota.server.testing;

import dev.rota.cluster.agent.AgentEntity;
import dev.rota.cluster.agent.ShardHomes;
import dev.rota.server.RotaNode;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.function.BooleanSupplier;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.AskPattern;
import org.apache.pekko.cluster.MemberStatus;
import org.apache.pekko.cluster.sharding.ShardRegion;
import org.apache.pekko.cluster.sharding.typed.GetShardRegionState;
import org.apache.pekko.cluster.sharding.typed.javadsl.ClusterSharding;
import org.apache.pekko.cluster.typed.Cluster;
import org.awaitility.Awaitility;

/** What tests of several nodes in one JVM ask of them: ports, members, where agents live. */
public final class ClusterNodes {
  private ClusterNodes() {}

  /** A port nothing listens on now. */
  public static int freePort() throws Exception {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }

  /** How many members {@code node} sees Up. */
  public static long membersUp(RotaNode node) {
    long up = 0;
    for (var member : Cluster.get(node.system()).state().getMembers()) {
      if (member.status() == MemberStatus.up()) {
        up++;
      }
    }
    return up;
  }

  /** The agent ids whose entities run on this node now. */
  public static Set<String> hostedAgents(RotaNode node, Duration timeout) throws Exception {
    ActorSystem<?> system = node.system();
    ShardRegion.CurrentShardRegionState state =
        AskPattern.<GetShardRegionState, ShardRegion.CurrentShardRegionState>ask(
                ClusterSharding.get(system).shardState().narrow(),
                r -> new GetShardRegionState(AgentEntity.ENTITY_TYPE_KEY, r),
                timeout,
                system.scheduler())
            .toCompletableFuture()
            .get();
    Set<String> ids = new HashSet<>();
    state.getShards().forEach(shard -> ids.addAll(shard.getEntityIds()));
    ids.removeIf(ShardHomes::isProbe);
    return ids;
  }

  /** A JSON request (or a bodiless one, {@code body} null) to the node's HTTP API. */
  public static HttpResponse<String> send(
      HttpClient http, RotaNode node, String method, String path, String body, Duration timeout)
      throws Exception {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + node.httpPort() + path))
            .timeout(timeout)
            .header("Content-Type", "application/json");
    request.method(
        method,
        body == null
            ? HttpRequest.BodyPublishers.noBody()
            : HttpRequest.BodyPublishers.ofString(body));
    return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  /** Polls {@code condition} every 100 ms until it holds, failing after {@code timeout}. */
  public static void await(String what, Duration timeout, BooleanSupplier condition)
      throws InterruptedException {
    Awaitility.await(what)
        .atMost(timeout)
        .pollDelay(Duration.ZERO)
        .pollInterval(Duration.ofMillis(100))
        .until(condition::getAsBoolean);
  }
}
