package dev.rota.cluster.agent;

import com.typesafe.config.Config;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.apache.pekko.actor.Address;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.Props;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.cluster.ClusterEvent;
import org.apache.pekko.cluster.MemberStatus;
import org.apache.pekko.cluster.sharding.ShardRegion;
import org.apache.pekko.cluster.sharding.typed.GetClusterShardingStats;
import org.apache.pekko.cluster.sharding.typed.HashCodeMessageExtractor;
import org.apache.pekko.cluster.sharding.typed.javadsl.ClusterSharding;
import org.apache.pekko.cluster.typed.Cluster;
import org.apache.pekko.cluster.typed.Subscribe;

/**
 * Keeps this node's shard region knowing where every shard of agents lives, so that a message to an
 * agent never has to ask the shard coordinator first.
 *
 * <p>A region learns a shard's home from the coordinator the first time it sees a message for that
 * shard, and again after the shard moved. The coordinator is a singleton on the oldest node: while
 * that node is frozen (a long GC pause, a paused VM), every such question waits until the node is
 * downed and the coordinator runs elsewhere (about 7 s), although the agent itself lives on a
 * healthy node (docs/failover.md, decision 85). So every {@code rota.agent-homes.refresh-every}
 * this node sends one message per shard to a probe entity of that shard: the region asks for the
 * homes it does not know while the coordinator is healthy, and the probe stops on its first
 * message. With Pekko's 1,000 shards that is 1,000 small messages per interval, most of them
 * answered from the region's cache and forwarded to the shard's node.
 *
 * <p>What each round finds also tells {@link AgentHomes} which node hosts which shard, and this
 * actor tells it when a node becomes unreachable.
 *
 * <p>Probe ids begin with {@value #PROBE_PREFIX}, which no agent id may contain ({@link
 * dev.rota.core.model.Ids}), so a probe never recovers or shadows an agent.
 */
public final class ShardHomes {

  static final String PROBE_PREFIX = "~home-";

  /** The next round while nothing is allocated or after one that found new shards allocated. */
  private static final Duration SOON = Duration.ofSeconds(1);

  private ShardHomes() {}

  /** Whether {@code entityId} is a probe rather than an agent. */
  public static boolean isProbe(String entityId) {
    return entityId.startsWith(PROBE_PREFIX);
  }

  /** A probe entity: it stops on the message that located it. */
  public static Behavior<AgentEntity.Command> probe() {
    return Behaviors.receiveMessage(message -> Behaviors.stopped());
  }

  /**
   * One probe id per shard, for the given number of shards, chosen with the sharding's own message
   * extractor so that a shard's probe lands in that shard: shard id to probe id.
   */
  static Map<String, String> probeIds(int numberOfShards) {
    HashCodeMessageExtractor<AgentEntity.Command> extractor =
        new HashCodeMessageExtractor<>(numberOfShards);
    Map<String, String> probes = new HashMap<>();
    for (long n = 0; probes.size() < numberOfShards; n++) {
      String id = PROBE_PREFIX + n;
      probes.putIfAbsent(extractor.shardId(id), id);
    }
    return probes;
  }

  /**
   * Starts locating homes on this node, once it is Up and then every {@code
   * rota.agent-homes.refresh-every}; nothing when that is 0.
   */
  public static void start(ActorSystem<?> system) {
    Config config = system.settings().config();
    Duration every = config.getDuration("rota.agent-homes.refresh-every");
    if (every.isZero()) {
      return;
    }
    Map<String, String> probes = probeIds(config.getInt("pekko.cluster.sharding.number-of-shards"));
    system.systemActorOf(locator(probes, every), "rota-agent-homes", Props.empty());
  }

  private interface Message {}

  private enum Tick implements Message {
    INSTANCE
  }

  private record Unreachable(ClusterEvent.UnreachableMember event) implements Message {}

  private record Allocated(Set<String> shards, Map<Address, Set<String>> byRegion)
      implements Message {}

  /**
   * Each round asks the coordinator which shards are allocated (and skips the round when it does
   * not answer) and probes only those: probing a shard that is not allocated would allocate it, and
   * shards allocated before the other nodes joined would all land on the first node.
   */
  private static Behavior<Message> locator(Map<String, String> probes, Duration every) {
    return Behaviors.setup(
        context ->
            Behaviors.withTimers(
                timers -> {
                  Duration untilUp = Duration.ofMillis(500);
                  timers.startSingleTimer(Tick.INSTANCE, untilUp);
                  ClusterSharding sharding = ClusterSharding.get(context.getSystem());
                  AgentHomes homes = AgentHomes.get(context.getSystem());
                  Cluster.get(context.getSystem())
                      .subscriptions()
                      .tell(
                          Subscribe.create(
                              context.messageAdapter(
                                  ClusterEvent.UnreachableMember.class, Unreachable::new),
                              ClusterEvent.UnreachableMember.class));
                  ActorRef<AgentEntity.Reply> nobody = context.getSystem().ignoreRef();
                  Set<String> seen = new HashSet<>();
                  return Behaviors.receive(Message.class)
                      .onMessage(
                          Tick.class,
                          tick -> {
                            if (Cluster.get(context.getSystem()).selfMember().status()
                                != MemberStatus.up()) {
                              timers.startSingleTimer(Tick.INSTANCE, untilUp);
                              return Behaviors.same();
                            }
                            context.ask(
                                ShardRegion.ClusterShardingStats.class,
                                sharding.shardState(),
                                Duration.ofSeconds(5),
                                replyTo ->
                                    new GetClusterShardingStats(
                                        AgentEntity.ENTITY_TYPE_KEY,
                                        Duration.ofSeconds(3),
                                        replyTo),
                                (stats, failure) -> {
                                  Set<String> shards = new HashSet<>();
                                  Map<Address, Set<String>> byRegion = new HashMap<>();
                                  if (stats != null) {
                                    stats
                                        .getRegions()
                                        .forEach(
                                            (address, region) -> {
                                              shards.addAll(region.getStats().keySet());
                                              byRegion.put(
                                                  address, Set.copyOf(region.getStats().keySet()));
                                            });
                                  }
                                  return new Allocated(shards, byRegion);
                                });
                            return Behaviors.same();
                          })
                      .onMessage(
                          Unreachable.class,
                          unreachable -> {
                            homes.unreachable(unreachable.event().member().address());
                            return Behaviors.same();
                          })
                      .onMessage(
                          Allocated.class,
                          allocated -> {
                            homes.learned(allocated.byRegion());
                            for (String shard : allocated.shards()) {
                              String probe = probes.get(shard);
                              if (probe != null) {
                                sharding
                                    .entityRefFor(AgentEntity.ENTITY_TYPE_KEY, probe)
                                    .tell(new AgentEntity.Get(nobody));
                              }
                            }
                            // While no shard is allocated yet, and after a round that found
                            // shards allocated since the one before (agents registering, a
                            // node's shards moving), the next round comes a second later: a
                            // fault right after them finds their homes known too.
                            boolean grew =
                                allocated.shards().isEmpty()
                                    || !seen.containsAll(allocated.shards());
                            seen.clear();
                            seen.addAll(allocated.shards());
                            timers.startSingleTimer(Tick.INSTANCE, grew ? SOON : every);
                            return Behaviors.same();
                          })
                      .build();
                }));
  }
}
