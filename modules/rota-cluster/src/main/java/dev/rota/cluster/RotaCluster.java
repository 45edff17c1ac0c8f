package dev.rota.cluster;

import dev.rota.cluster.agent.AgentEntity;
import dev.rota.cluster.agent.AgentSettings;
import dev.rota.cluster.assign.Coordinator;
import dev.rota.cluster.assign.CoordinatorSettings;
import dev.rota.cluster.assign.Coordinators;
import dev.rota.cluster.assign.Dispatcher;
import dev.rota.cluster.assign.PartitionLoader;
import dev.rota.cluster.readmodel.AgentScheduleProjection;
import dev.rota.cluster.readmodel.ReadModel;
import dev.rota.cluster.rescue.LeaseRescuer;
import dev.rota.cluster.system.SystemControl;
import java.util.concurrent.CompletableFuture;
import javax.sql.DataSource;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.DispatcherSelector;

/**
 * Starts Rota's cluster parts on this node, in dependency order: where coordinators live, agents
 * (which push to them), the read-model projection, coordinators (which load from it), the lease
 * rescuer, the pause switch, and the node's dispatcher.
 *
 * @param readModel null when started without a database (tests with the in-memory journal)
 * @param dispatcher where runners and the HTTP claim route ask for work
 * @param systemControl the pause switch's singleton proxy
 */
public record RotaCluster(
    ActorSystem<?> system,
    AgentSettings agentSettings,
    Coordinators coordinators,
    ReadModel readModel,
    ActorRef<Dispatcher.Command> dispatcher,
    ActorRef<SystemControl.Command> systemControl,
    ActorRef<LeaseRescuer.Command> rescuer) {

  /** The production wiring: journal, read model and offsets in the database behind dataSource. */
  public static RotaCluster start(ActorSystem<?> system, DataSource dataSource) {
    ReadModel readModel = new ReadModel(dataSource);
    var blocking = system.dispatchers().lookup(DispatcherSelector.blocking());
    PartitionLoader loader =
        partition ->
            CompletableFuture.supplyAsync(
                () ->
                    readModel.loadPartition(partition).stream()
                        .map(row -> new PartitionLoader.Versioned(row.schedule(), row.seqNr()))
                        .toList(),
                blocking);
    AgentSettings agentSettings = AgentSettings.from(system.settings().config());
    if (!dev.rota.cluster.journal.RotaJournal.writesReadModelOf(system.settings().config())) {
      AgentScheduleProjection.init(system, dataSource, agentSettings);
    }
    return start(system, loader, readModel);
  }

  /** Without a read model: coordinators start empty and nothing rescues leases but agents. */
  public static RotaCluster start(ActorSystem<?> system, PartitionLoader loader) {
    return start(system, loader, null);
  }

  private static RotaCluster start(
      ActorSystem<?> system, PartitionLoader loader, ReadModel readModel) {
    AgentSettings agentSettings = AgentSettings.from(system.settings().config());
    CoordinatorSettings coordinatorSettings = CoordinatorSettings.from(system.settings().config());
    Coordinators coordinators = Coordinators.track(system, agentSettings.partitions());
    AgentEntity.init(system, agentSettings, coordinators.pushingListener());
    Coordinator.init(system, coordinatorSettings, loader);
    ActorRef<LeaseRescuer.Command> rescuer =
        readModel == null ? null : LeaseRescuer.init(system, readModel);
    ActorRef<SystemControl.Command> systemControl = SystemControl.init(system);
    ActorRef<Dispatcher.Command> dispatcher =
        Dispatcher.init(system, coordinators, coordinatorSettings);
    return new RotaCluster(
        system, agentSettings, coordinators, readModel, dispatcher, systemControl, rescuer);
  }
}
