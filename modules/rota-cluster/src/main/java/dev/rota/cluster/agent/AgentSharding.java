package dev.rota.cluster.agent;

import java.time.Clock;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.SupervisorStrategy;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.cluster.sharding.typed.javadsl.ClusterSharding;
import org.apache.pekko.cluster.sharding.typed.javadsl.Entity;
import org.apache.pekko.persistence.typed.EventRejectedException;

/**
 * Agents sharded over the cluster: an entity per agent id, on the wall clock and the host's
 * monotonic clock, restarted when the journal rejects an event; ids of {@link ShardHomes}' probes
 * get a probe instead of an agent. The calls of callers outside Rota ({@link CallEntity}) are
 * sharded with them.
 */
public final class AgentSharding {

  private AgentSharding() {}

  /** Starts sharding of agents on this node; the listener hears every change. */
  public static void init(
      ActorSystem<?> system, AgentSettings settings, AgentChangeListener listener) {
    // Agents answer the calls of callers outside Rota through their entities.
    CallEntity.init(system);
    ClusterSharding.get(system)
        .init(
            Entity.of(
                AgentEntity.ENTITY_TYPE_KEY,
                ctx ->
                    ShardHomes.isProbe(ctx.getEntityId())
                        ? ShardHomes.probe()
                        : Behaviors.supervise(
                                AgentEntity.create(
                                    ctx.getEntityId(),
                                    settings,
                                    listener,
                                    Clock.systemUTC(),
                                    System::nanoTime))
                            .onFailure(
                                EventRejectedException.class, SupervisorStrategy.restart())));
  }
}
