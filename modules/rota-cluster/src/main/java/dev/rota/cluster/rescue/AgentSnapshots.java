package dev.rota.cluster.rescue;

import dev.rota.cluster.agent.AgentEntity;
import dev.rota.cluster.journal.JournalRetention;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.cluster.sharding.typed.javadsl.ClusterSharding;

/**
 * What retention asks to snapshot before it removes events (decision 124): agents, by a {@link
 * AgentEntity.Snapshot} through sharding, which recovers one that sleeps. Other entities are not
 * asked; their few events are copied forward instead.
 */
public final class AgentSnapshots implements JournalRetention.Snapshots {
  private static final String PREFIX = AgentEntity.ENTITY_TYPE_KEY.name() + "|";

  private final ActorSystem<?> system;
  private final ClusterSharding sharding;

  public AgentSnapshots(ActorSystem<?> system) {
    this.system = system;
    this.sharding = ClusterSharding.get(system);
  }

  @Override
  public boolean canAsk(String persistenceId) {
    return persistenceId.startsWith(PREFIX);
  }

  @Override
  public void ask(String persistenceId) {
    sharding
        .entityRefFor(AgentEntity.ENTITY_TYPE_KEY, persistenceId.substring(PREFIX.length()))
        .tell(new AgentEntity.Snapshot(system.ignoreRef()));
  }
}
