package dev.rota.cluster.readmodel;

import dev.rota.cluster.agent.AgentEvents.Event;
import dev.rota.cluster.agent.AgentSettings;
import dev.rota.cluster.metrics.RotaMetrics;
import dev.rota.core.model.Partitions;
import java.util.Optional;
import javax.sql.DataSource;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.cluster.sharding.typed.ShardedDaemonProcessSettings;
import org.apache.pekko.cluster.sharding.typed.javadsl.ShardedDaemonProcess;
import org.apache.pekko.persistence.jdbc.query.javadsl.JdbcReadJournal;
import org.apache.pekko.persistence.query.Offset;
import org.apache.pekko.projection.ProjectionBehavior;
import org.apache.pekko.projection.ProjectionId;
import org.apache.pekko.projection.eventsourced.EventEnvelope;
import org.apache.pekko.projection.eventsourced.javadsl.EventSourcedProvider;
import org.apache.pekko.projection.javadsl.GroupedProjection;
import org.apache.pekko.projection.javadsl.SourceProvider;
import org.apache.pekko.projection.jdbc.javadsl.JdbcProjection;

/**
 * The read model's alternative writer (decision 75): keeps {@code agent_schedule}, {@code
 * dead_letter} and {@code rota_counter} from the agents' tagged events, one projection per
 * partition tag, spread over the cluster as a sharded daemon process. It runs only when the journal
 * does not write the read model ({@code rota.read-model.writer = projection}: draining a database
 * written before decision 27, or another journal plugin). Each group of events and the projection's
 * offset commit in one transaction, so every event counts exactly once.
 *
 * <p>Needs {@code pekko.projection.jdbc.dialect} and the size of {@code
 * pekko.projection.jdbc.blocking-jdbc-dispatcher} (one thread per connection of the DataSource),
 * and the tables of the migrations under {@code db/migration/<dialect>}.
 */
public final class AgentScheduleProjection {
  /** The projection name in the offset store; the key is the tag ({@code agent-<p>}). */
  public static final String NAME = "agent-schedule";

  private AgentScheduleProjection() {}

  /** Starts this node's share of the P projections; call once per node. */
  public static void init(ActorSystem<?> system, DataSource dataSource, AgentSettings settings) {
    ProjectionSettings projectionSettings = ProjectionSettings.from(system.settings().config());
    ShardedDaemonProcess.get(system)
        .init(
            ProjectionBehavior.Command.class,
            "AgentScheduleProjection",
            settings.partitions(),
            partition ->
                ProjectionBehavior.create(
                    create(system, dataSource, settings, projectionSettings, partition)),
            ShardedDaemonProcessSettings.create(system),
            Optional.of(ProjectionBehavior.stopMessage()));
  }

  /** The projection of one partition; {@link #init} runs one per partition. */
  public static GroupedProjection<Offset, EventEnvelope<Event>> create(
      ActorSystem<?> system,
      DataSource dataSource,
      AgentSettings settings,
      ProjectionSettings projectionSettings,
      int partition) {
    String tag = Partitions.tag(partition);
    SourceProvider<Offset, EventEnvelope<Event>> source =
        EventSourcedProvider.eventsByTag(system, JdbcReadJournal.Identifier(), tag);
    return JdbcProjection.<Offset, EventEnvelope<Event>, PlainJdbcSession>groupedWithin(
            projectionId(partition),
            source,
            () -> new PlainJdbcSession(dataSource),
            () ->
                new AgentScheduleProjectionHandler(
                    settings.partitions(), RotaMetrics.get(system)::readModelEventSkipped),
            system)
        .withGroup(
            projectionSettings.groupAfterEnvelopes(), projectionSettings.groupAfterDuration())
        .withRestartBackoff(
            projectionSettings.restartMinBackoff(),
            projectionSettings.restartMaxBackoff(),
            projectionSettings.restartRandomFactor());
  }

  public static ProjectionId projectionId(int partition) {
    return ProjectionId.of(NAME, Partitions.tag(partition));
  }
}
