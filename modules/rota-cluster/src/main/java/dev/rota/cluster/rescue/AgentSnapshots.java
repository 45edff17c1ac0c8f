package dev.rota.cluster.rescue;

import dev.rota.cluster.agent.AgentEntity;
import dev.rota.cluster.agent.CallEntity;
import dev.rota.cluster.agent.CallSettings;
import dev.rota.cluster.journal.JournalRetention;
import dev.rota.core.model.CallRequest;
import java.time.Duration;
import java.util.Optional;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.cluster.sharding.typed.javadsl.ClusterSharding;

/**
 * What retention asks to snapshot before it removes events (decision 124): agents, by a {@link
 * AgentEntity.Snapshot} through sharding, which recovers one that sleeps. Other entities are not
 * asked; their few events are copied forward instead, except a call's once it is over: past its
 * longest deadline ({@code CallRequest.MAX_TIMEOUT_SECONDS}) and its answer's {@code
 * rota.calls.retention}, when {@code GET /v1/calls/{callId}} no longer shows it anyway.
 */
public final class AgentSnapshots implements JournalRetention.Snapshots {
  private static final String PREFIX = AgentEntity.ENTITY_TYPE_KEY.name() + "|";
  private static final String CALL_PREFIX = CallEntity.ENTITY_TYPE_KEY.name() + "|";

  private final ActorSystem<?> system;
  private final ClusterSharding sharding;
  private final Duration callsOverAfter;

  public AgentSnapshots(ActorSystem<?> system) {
    this.system = system;
    this.sharding = ClusterSharding.get(system);
    this.callsOverAfter =
        Duration.ofSeconds(CallRequest.MAX_TIMEOUT_SECONDS)
            .plus(CallSettings.from(system.settings().config()).retention());
  }

  @Override
  public Optional<Duration> overAfter(String persistenceId) {
    return persistenceId.startsWith(CALL_PREFIX) ? Optional.of(callsOverAfter) : Optional.empty();
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
