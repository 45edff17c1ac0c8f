package dev.rota.server;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;
import org.apache.pekko.Done;
import org.apache.pekko.actor.CoordinatedShutdown;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Extension;
import org.apache.pekko.actor.typed.ExtensionId;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.cluster.Cluster;
import org.apache.pekko.cluster.MemberStatus;
import org.apache.pekko.cluster.sharding.ClusterShardingHealthCheck;
import scala.jdk.javaapi.FutureConverters;

/**
 * Whether this node can serve, in two senses (decision 17):
 *
 * <ul>
 *   <li>{@link #clusterServing()}: it is an Up member and its shard regions (agents, partition
 *       coordinators) have registered with their coordinators. Until then the API answers 503 with
 *       {@code Retry-After} at once instead of letting requests hang on a node that cannot route
 *       them.
 *   <li>{@link #ready()}: also the HTTP API is bound and the node is not shutting down. Pekko
 *       Management's {@code /ready} includes it through {@link Check}, so {@code /ready} is never
 *       200 before the API answers, and turns 503 as the first step of a shutdown.
 * </ul>
 */
public final class NodeReadiness implements Extension {
  private static final Duration PROBE_INTERVAL = Duration.ofMillis(200);

  private final ActorSystem<?> system;
  private final Cluster cluster;
  private final ClusterShardingHealthCheck sharding;
  private volatile boolean apiBound;
  private volatile boolean shuttingDown;
  private volatile boolean regionsRegistered;
  private volatile boolean probing;

  private NodeReadiness(ActorSystem<?> system) {
    this.system = system;
    this.cluster = Cluster.get(Adapter.toClassic(system));
    this.sharding = new ClusterShardingHealthCheck(Adapter.toClassic(system));
    CoordinatedShutdown.get(system)
        .addTask(
            CoordinatedShutdown.PhaseBeforeServiceUnbind(),
            "rota-not-ready",
            () -> {
              shuttingDown = true;
              return CompletableFuture.completedFuture(Done.getInstance());
            });
  }

  public static NodeReadiness get(ActorSystem<?> system) {
    return Id.INSTANCE.apply(system);
  }

  /** The API is bound (called by the {@link Guardian}). */
  void apiBound() {
    apiBound = true;
  }

  /** An Up member whose shard regions are registered; see the class comment. */
  public boolean clusterServing() {
    if (cluster.selfMember().status() != MemberStatus.up()) {
      return false;
    }
    if (!regionsRegistered) {
      probe();
      return false;
    }
    return true;
  }

  /** What {@code /ready} reports: serving, the API bound, not shutting down. */
  public boolean ready() {
    return apiBound && !shuttingDown && clusterServing();
  }

  public boolean shuttingDown() {
    return shuttingDown;
  }

  /**
   * Asks the shard regions whether they have registered (at most one probe at a time); once they
   * have, they stay counted as registered, as Pekko's own sharding health check does, so that a
   * coordinator moving elsewhere does not make every node unready at once.
   */
  private void probe() {
    synchronized (this) {
      if (probing || regionsRegistered) {
        return;
      }
      probing = true;
    }
    FutureConverters.asJava(sharding.apply())
        .whenComplete(
            (registered, failure) -> {
              if (Boolean.TRUE.equals(registered)) {
                regionsRegistered = true;
                probing = false;
              } else {
                system
                    .scheduler()
                    .scheduleOnce(
                        PROBE_INTERVAL,
                        () -> {
                          probing = false;
                          probe();
                        },
                        system.executionContext());
              }
            });
  }

  /** Pekko Management's readiness check ({@code pekko.management.health-checks}). */
  public static final class Check implements Supplier<CompletionStage<Boolean>> {
    private final NodeReadiness readiness;

    public Check(org.apache.pekko.actor.ActorSystem system) {
      this.readiness = NodeReadiness.get(Adapter.toTyped(system));
    }

    @Override
    public CompletionStage<Boolean> get() {
      return CompletableFuture.completedFuture(readiness.ready());
    }
  }

  /** The extension's id. */
  public static final class Id extends ExtensionId<NodeReadiness> {
    static final Id INSTANCE = new Id();

    @Override
    public NodeReadiness createExtension(ActorSystem<?> system) {
      return new NodeReadiness(system);
    }
  }
}
