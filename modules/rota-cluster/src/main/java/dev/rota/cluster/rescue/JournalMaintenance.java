package dev.rota.cluster.rescue;

import com.typesafe.config.Config;
import dev.rota.cluster.CborSerializable;
import dev.rota.cluster.journal.JournalRetention;
import dev.rota.cluster.journal.PartitionHorizon;
import dev.rota.cluster.metrics.JournalMeters;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import javax.sql.DataSource;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.DispatcherSelector;
import org.apache.pekko.actor.typed.SupervisorStrategy;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.cluster.typed.ClusterSingleton;
import org.apache.pekko.cluster.typed.SingletonActor;

/**
 * The journal's maintenance (decision 124), a cluster singleton: every {@code
 * rota.journal.maintenance-interval} it runs {@link JournalRetention} on the blocking dispatcher —
 * partitions created ahead of the writes, events past the retention removed, agents that still need
 * them asked to snapshot first — and samples the storage gauges ({@link StorageSample}). One run at
 * a time; a tick during a run is skipped. It keeps its last good run as a {@link StorageReport} and
 * answers it to {@link GetStorage}, so the admin API of every node shows the same figures (decision
 * 134); a new incarnation has none until its first run, which starts at once. Between the runs,
 * every {@code rota.journal.ahead-interval} it looks whether the partitions still lie {@code
 * ahead-horizon} ahead of the writes ({@link PartitionHorizon}); a look during a look is skipped, a
 * look during a run is not (creators of partitions take turns in the database).
 */
public final class JournalMaintenance {
  private JournalMaintenance() {}

  /** Messages of the singleton. Only {@link GetStorage} is for other actors. */
  public sealed interface Command {}

  /** Asks for the last good run; crosses nodes (the admin API asks from any node). */
  public record GetStorage(ActorRef<StorageReply> replyTo) implements Command, CborSerializable {}

  /** The answer to {@link GetStorage}; {@code report} is null until a run has ended well. */
  public record StorageReply(StorageReport report) implements CborSerializable {}

  private enum Tick implements Command {
    INSTANCE
  }

  /** Time to look whether the partitions still lie a horizon ahead of the writes. */
  private enum AheadTick implements Command {
    INSTANCE
  }

  private record Looked(Throwable failure) implements Command {}

  private record Ran(JournalRetention.Run run, StorageSample.Storage storage, Throwable failure)
      implements Command {}

  public static ActorRef<Command> init(ActorSystem<?> system, DataSource dataSource) {
    Config config = system.settings().config().getConfig("rota.journal");
    // Every node exports the meters (the singleton's node fills them): alerts find the series.
    JournalMeters.get(system).retention(config.getDuration("retention"));
    return ClusterSingleton.get(system)
        .init(
            SingletonActor.of(
                Behaviors.supervise(
                        create(
                            dataSource,
                            settings(config),
                            config.getDuration("maintenance-interval"),
                            new Ahead(
                                config.getDuration("ahead-interval"),
                                config.getDuration("ahead-horizon")),
                            Clock.systemUTC()))
                    .onFailure(SupervisorStrategy.restart()),
                "JournalMaintenance"));
  }

  /** The {@code rota.journal} keys. */
  public static JournalRetention.Settings settings(Config config) {
    return new JournalRetention.Settings(
        config.getDuration("retention"),
        config.getInt("partitions-ahead"),
        config.getLong("partition-min-rows"),
        config.getLong("partition-max-rows"),
        config.getDuration("snapshot-wait"),
        config.getInt("snapshot-parallelism"),
        config.getInt("delete-batch"));
  }

  /**
   * How often the singleton looks whether the partitions lie {@code horizon} ahead of the writes at
   * their recent rate ({@link PartitionHorizon}), between the retention runs.
   */
  public record Ahead(Duration interval, Duration horizon) {}

  public static Behavior<Command> create(
      DataSource dataSource,
      JournalRetention.Settings settings,
      Duration interval,
      Ahead ahead,
      Clock clock) {
    return Behaviors.setup(
        context ->
            Behaviors.withTimers(
                timers -> {
                  timers.startTimerWithFixedDelay(Tick.INSTANCE, Duration.ZERO, interval);
                  timers.startTimerWithFixedDelay(
                      AheadTick.INSTANCE, ahead.interval(), ahead.interval());
                  ActorSystem<?> system = context.getSystem();
                  Executor blocking = system.dispatchers().lookup(DispatcherSelector.blocking());
                  JournalMeters meters = JournalMeters.get(system);
                  meters.retention(settings.retention());
                  JournalRetention retention =
                      new JournalRetention(dataSource, settings, new AgentSnapshots(system));
                  PartitionHorizon horizon =
                      new PartitionHorizon(dataSource, settings, ahead.horizon());
                  boolean[] running = {false};
                  boolean[] looking = {false};
                  StorageReport[] last = {null};
                  return Behaviors.receive(Command.class)
                      .onMessageEquals(
                          Tick.INSTANCE,
                          () -> {
                            if (running[0]) {
                              return Behaviors.same();
                            }
                            running[0] = true;
                            context.pipeToSelf(
                                CompletableFuture.supplyAsync(
                                    () -> {
                                      try {
                                        JournalRetention.Run run = retention.run(clock.instant());
                                        return new Ran(
                                            run,
                                            StorageSample.take(dataSource, clock.instant()),
                                            null);
                                      } catch (Exception e) {
                                        throw new CompletionException(e);
                                      }
                                    },
                                    blocking),
                                (ran, failure) ->
                                    failure != null ? new Ran(null, null, failure) : ran);
                            return Behaviors.same();
                          })
                      .onMessage(
                          Ran.class,
                          ran -> {
                            running[0] = false;
                            if (ran.failure() != null) {
                              context
                                  .getLog()
                                  .warn("journal retention run failed: {}", cause(ran.failure()));
                              meters.runFailed();
                            } else {
                              last[0] = report(ran, clock.instant(), settings.retention());
                              meters.ran(
                                  last[0].rowsRemoved(),
                                  last[0].bytesRemoved(),
                                  last[0].journalRows(),
                                  last[0].journalBytes(),
                                  last[0].oldestEventAge(),
                                  last[0].deadTuples(),
                                  last[0].endedAt().getEpochSecond());
                            }
                            return Behaviors.same();
                          })
                      .onMessageEquals(
                          AheadTick.INSTANCE,
                          () -> {
                            if (looking[0]) {
                              return Behaviors.same();
                            }
                            looking[0] = true;
                            context.pipeToSelf(
                                CompletableFuture.runAsync(
                                    () -> {
                                      try {
                                        horizon.check(clock.instant());
                                      } catch (Exception e) {
                                        throw new CompletionException(e);
                                      }
                                    },
                                    blocking),
                                (done, failure) -> new Looked(failure));
                            return Behaviors.same();
                          })
                      .onMessage(
                          Looked.class,
                          looked -> {
                            looking[0] = false;
                            if (looked.failure() != null) {
                              context
                                  .getLog()
                                  .warn(
                                      "journal partitions ahead: look failed: {}",
                                      cause(looked.failure()));
                            }
                            return Behaviors.same();
                          })
                      .onMessage(
                          GetStorage.class,
                          get -> {
                            get.replyTo().tell(new StorageReply(last[0]));
                            return Behaviors.same();
                          })
                      .build();
                }));
  }

  /** What failed, without the wrapper of the future it failed in. */
  private static String cause(Throwable failure) {
    return (failure.getCause() != null ? failure.getCause() : failure).toString();
  }

  private static StorageReport report(Ran ran, Instant endedAt, Duration retention) {
    StorageSample.Storage storage = ran.storage();
    return new StorageReport(
        endedAt,
        ran.run().rowsRemoved(),
        ran.run().bytesRemoved(),
        storage.journalRows(),
        storage.journalBytes(),
        storage.oldestEventAge(),
        storage.deadTuples(),
        retention);
  }
}
