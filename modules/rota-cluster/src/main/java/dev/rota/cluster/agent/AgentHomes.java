package dev.rota.cluster.agent;

import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.pekko.actor.Address;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Extension;
import org.apache.pekko.actor.typed.ExtensionId;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.cluster.Cluster;
import org.apache.pekko.cluster.Member;
import org.apache.pekko.cluster.sharding.typed.HashCodeMessageExtractor;

/**
 * Which node each shard of agents lived on when {@link ShardHomes} last asked (an extension, one
 * per node), so that a request for an agent whose node is unreachable does not wait for it.
 *
 * <p>Until an unreachable node is downed and removed, the shard region keeps sending its agents'
 * messages to it, and each waits out the ask timeout (5 s) for an answer that never comes; an SDK
 * client then waits the 503's Retry-After before it tries again, so a request made just before the
 * shards move was accepted only 10 s or more later. Instead, a request for such an agent is refused
 * at once ({@link #unreachableHome}: nothing is sent, nothing accepted), and a request already
 * waiting for a node that becomes unreachable is ended then ({@link #watch}: it was sent, so, as
 * after a timeout, it may still be applied if the node recovers; a retry with its dedupe key is
 * safe). Both answer 503 with a short Retry-After, so the client's next try comes a second later
 * and finds the shard moved (decision 105). A shard's home is the one seen at the last round (every
 * {@code rota.agent-homes.refresh-every}, or a second after shards moved); a round that misses a
 * node (it does not answer) keeps what was known of it.
 */
public final class AgentHomes implements Extension {
  private final Cluster cluster;
  private final HashCodeMessageExtractor<AgentEntity.Command> extractor;
  private final Map<String, Address> homes = new ConcurrentHashMap<>();
  private final Map<Address, Set<CompletableFuture<?>>> waiting = new ConcurrentHashMap<>();

  /** A request ended because the node of its agent became unreachable while it waited. */
  public static final class HomeUnreachable extends RuntimeException {
    private final Address home;

    HomeUnreachable(Address home) {
      super("the agent's node " + home + " became unreachable", null, false, false);
      this.home = home;
    }

    public Address home() {
      return home;
    }
  }

  private AgentHomes(ActorSystem<?> system) {
    this.cluster = cluster(system);
    this.extractor =
        new HashCodeMessageExtractor<>(
            system.settings().config().getInt("pekko.cluster.sharding.number-of-shards"));
  }

  /** The system's cluster; null for a system that is not a cluster member (some tests). */
  private static Cluster cluster(ActorSystem<?> system) {
    try {
      return Cluster.get(Adapter.toClassic(system));
    } catch (RuntimeException e) {
      return null;
    }
  }

  public static AgentHomes get(ActorSystem<?> system) {
    return Id.INSTANCE.apply(system);
  }

  /** What a round found: the shards each answering region hosts. */
  void learned(Map<Address, Set<String>> shardsByRegion) {
    shardsByRegion.forEach((address, shards) -> shards.forEach(s -> homes.put(s, address)));
  }

  /**
   * {@code answer}, ended with {@link HomeUnreachable} if the node that hosted {@code agentId}'s
   * shard at the last round becomes unreachable before it completes.
   */
  public <T> CompletionStage<T> watch(String agentId, CompletionStage<T> answer) {
    Address home = homes.get(extractor.shardId(agentId));
    if (home == null) {
      return answer;
    }
    CompletableFuture<T> result = new CompletableFuture<>();
    Set<CompletableFuture<?>> onHome =
        waiting.computeIfAbsent(home, a -> ConcurrentHashMap.newKeySet());
    onHome.add(result);
    answer.whenComplete(
        (value, failure) -> {
          onHome.remove(result);
          if (failure != null) {
            result.completeExceptionally(failure);
          } else {
            result.complete(value);
          }
        });
    return result;
  }

  /** {@code node} became unreachable: every request waiting for an agent hosted there ends now. */
  void unreachable(Address node) {
    Set<CompletableFuture<?>> onHome = waiting.get(node);
    if (onHome == null) {
      return;
    }
    for (CompletableFuture<?> request : onHome) {
      request.completeExceptionally(new HomeUnreachable(node));
    }
    onHome.clear();
  }

  /**
   * The node that hosted {@code agentId}'s shard at the last round, if this node sees it
   * unreachable now; empty otherwise (the usual case: nothing is unreachable).
   */
  public Optional<Address> unreachableHome(String agentId) {
    if (cluster == null) {
      return Optional.empty();
    }
    Set<Member> unreachable = cluster.state().getUnreachable();
    if (unreachable.isEmpty()) {
      return Optional.empty();
    }
    Set<Address> addresses = new HashSet<>();
    unreachable.forEach(member -> addresses.add(member.address()));
    return homeAmong(agentId, addresses);
  }

  /**
   * The node that hosted {@code agentId}'s shard at the last round, if it is one of {@code nodes}.
   */
  Optional<Address> homeAmong(String agentId, Set<Address> nodes) {
    Address home = homes.get(extractor.shardId(agentId));
    return home != null && nodes.contains(home) ? Optional.of(home) : Optional.empty();
  }

  private static final class Id extends ExtensionId<AgentHomes> {
    static final Id INSTANCE = new Id();

    @Override
    public AgentHomes createExtension(ActorSystem<?> system) {
      return new AgentHomes(system);
    }
  }
}
