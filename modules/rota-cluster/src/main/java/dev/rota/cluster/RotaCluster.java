package dev.rota.cluster;

import dev.rota.cluster.agent.AgentLeaseProbe;
import dev.rota.cluster.agent.AgentSettings;
import dev.rota.cluster.agent.AgentSharding;
import dev.rota.cluster.agent.ShardHomes;
import dev.rota.cluster.assign.Coordinator;
import dev.rota.cluster.assign.CoordinatorSettings;
import dev.rota.cluster.assign.Coordinators;
import dev.rota.cluster.assign.Dispatcher;
import dev.rota.cluster.assign.PartitionLoader;
import dev.rota.cluster.health.HealthSettings;
import dev.rota.cluster.health.RunnerHealth;
import dev.rota.cluster.pool.PoolScaler;
import dev.rota.cluster.pool.PoolScalerSettings;
import dev.rota.cluster.readmodel.JdbcPartitionLoader;
import dev.rota.cluster.readmodel.JournalSink;
import dev.rota.cluster.readmodel.ReadModel;
import dev.rota.cluster.rescue.JournalMaintenance;
import dev.rota.cluster.rescue.LeaseRescuer;
import dev.rota.cluster.rescue.OutboxSweeper;
import dev.rota.cluster.system.SystemControl;
import dev.rota.cluster.tenant.TenantCapSettings;
import dev.rota.cluster.tenant.TenantDirectory;
import dev.rota.cluster.tenant.TenantGate;
import javax.sql.DataSource;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.DispatcherSelector;

/**
 * Starts Rota's cluster parts on this node, in dependency order: where coordinators live, agents
 * (which push to them and whose journal writes the read model), coordinators (which load from it),
 * the lease rescuer, the pause switch, the tenant directory, the pool scaler, the node's
 * dispatcher, and the journal's maintenance.
 *
 * @param readModel null when started without a database (tests with the in-memory journal)
 * @param dispatcher where runners and the HTTP claim route ask for work
 * @param systemControl the pause switch's singleton proxy
 * @param poolScaler the pool scaler's singleton proxy; null without a read model or with {@code
 *     rota.pools.enabled = off}
 * @param runnerHealth the runner health singleton's proxy
 * @param tenantDirectory the tenant directory's singleton proxy
 * @param journalMaintenance the journal maintenance singleton's proxy (decision 124); null without
 *     a database
 */
public record RotaCluster(
    ActorSystem<?> system,
    AgentSettings agentSettings,
    Coordinators coordinators,
    ReadModel readModel,
    ActorRef<Dispatcher.Command> dispatcher,
    ActorRef<SystemControl.Command> systemControl,
    ActorRef<LeaseRescuer.Command> rescuer,
    ActorRef<PoolScaler.Command> poolScaler,
    ActorRef<RunnerHealth.Command> runnerHealth,
    ActorRef<TenantDirectory.Command> tenantDirectory,
    ActorRef<JournalMaintenance.Command> journalMaintenance) {

  /**
   * The production wiring: journal and read model in the database behind dataSource (and the
   * projection's offsets, when the projection writes the read model).
   */
  public static RotaCluster start(ActorSystem<?> system, DataSource dataSource) {
    ReadModel readModel = new ReadModel(dataSource);
    PartitionLoader loader =
        new JdbcPartitionLoader(
            readModel, system.dispatchers().lookup(DispatcherSelector.blocking()));
    if (!JournalSink.writesReadModelOf(system.settings().config())) {
      // The journal's sink is the read model's only writer (decision 97): without it nothing
      // would keep agent_schedule, and coordinators, rescue and listings would read a stale one.
      throw new IllegalStateException(
          "the read model is written only by Rota's journal: pekko.persistence.journal.plugin"
              + " must be rota-journal with rota-journal.read-model-sink = "
              + JournalSink.class.getName());
    }
    return start(system, loader, readModel, dataSource);
  }

  /** Without a read model: coordinators start empty and nothing rescues leases but agents. */
  public static RotaCluster start(ActorSystem<?> system, PartitionLoader loader) {
    return start(system, loader, null, null);
  }

  private static RotaCluster start(
      ActorSystem<?> system, PartitionLoader loader, ReadModel readModel, DataSource dataSource) {
    AgentSettings agentSettings = AgentSettings.from(system.settings().config());
    CoordinatorSettings coordinatorSettings = CoordinatorSettings.from(system.settings().config());
    Coordinators coordinators = Coordinators.track(system, agentSettings.partitions());
    AgentSharding.init(system, agentSettings, coordinators.pushingListener());
    // Capped tenants' gates: their agents ask them before a grant (decision 99).
    TenantGate.init(
        system,
        new AgentLeaseProbe(
            system, TenantCapSettings.from(system.settings().config()).askTimeout()));
    ShardHomes.start(system);
    Coordinator.init(system, coordinatorSettings, loader);
    ActorRef<LeaseRescuer.Command> rescuer =
        readModel == null ? null : LeaseRescuer.init(system, readModel);
    if (readModel != null) {
      OutboxSweeper.init(system, readModel);
    }
    ActorRef<SystemControl.Command> systemControl = SystemControl.init(system);
    ActorRef<TenantDirectory.Command> tenantDirectory = TenantDirectory.init(system);
    ActorRef<RunnerHealth.Command> runnerHealth =
        RunnerHealth.init(system, HealthSettings.from(system.settings().config()));
    PoolScalerSettings poolSettings = PoolScalerSettings.from(system.settings().config());
    ActorRef<PoolScaler.Command> poolScaler =
        readModel == null || !poolSettings.enabled()
            ? null
            : PoolScaler.init(system, readModel, systemControl, poolSettings);
    ActorRef<Dispatcher.Command> dispatcher =
        Dispatcher.init(system, coordinators, coordinatorSettings);
    // Retention and the journal's partitions (decision 124).
    ActorRef<JournalMaintenance.Command> journalMaintenance =
        dataSource == null ? null : JournalMaintenance.init(system, dataSource);
    return new RotaCluster(
        system,
        agentSettings,
        coordinators,
        readModel,
        dispatcher,
        systemControl,
        rescuer,
        poolScaler,
        runnerHealth,
        tenantDirectory,
        journalMaintenance);
  }
}
