package dev.rota.cluster;

import dev.rota.cluster.agent.AgentEntity;
import dev.rota.cluster.agent.AgentSettings;
import dev.rota.cluster.assign.Coordinator;
import dev.rota.cluster.assign.CoordinatorSettings;
import dev.rota.cluster.assign.Coordinators;
import dev.rota.cluster.assign.Dispatcher;
import dev.rota.cluster.assign.PartitionLoader;
import dev.rota.cluster.system.SystemControl;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;

/**
 * Starts Rota's cluster parts on this node, in dependency order: where coordinators live, agents
 * (which push to them), coordinators, the pause switch, and the node's dispatcher.
 *
 * @param dispatcher where runners and the HTTP claim route ask for work
 * @param systemControl the pause switch's singleton proxy
 */
public record RotaCluster(
    ActorSystem<?> system,
    AgentSettings agentSettings,
    Coordinators coordinators,
    ActorRef<Dispatcher.Command> dispatcher,
    ActorRef<SystemControl.Command> systemControl) {

  public static RotaCluster start(ActorSystem<?> system, PartitionLoader loader) {
    AgentSettings agentSettings = AgentSettings.from(system.settings().config());
    CoordinatorSettings coordinatorSettings = CoordinatorSettings.from(system.settings().config());
    Coordinators coordinators = Coordinators.track(system, agentSettings.partitions());
    AgentEntity.init(system, agentSettings, coordinators.pushingListener());
    Coordinator.init(system, coordinatorSettings, loader);
    ActorRef<SystemControl.Command> systemControl = SystemControl.init(system);
    ActorRef<Dispatcher.Command> dispatcher =
        Dispatcher.init(system, coordinators, coordinatorSettings);
    return new RotaCluster(system, agentSettings, coordinators, dispatcher, systemControl);
  }
}
