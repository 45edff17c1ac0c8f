package dev.rota.cluster.rescue;

import dev.rota.cluster.agent.AgentEntity;
import dev.rota.cluster.readmodel.ReadModel;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.DispatcherSelector;
import org.apache.pekko.actor.typed.SupervisorStrategy;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.cluster.sharding.typed.javadsl.ClusterSharding;
import org.apache.pekko.cluster.typed.ClusterSingleton;
import org.apache.pekko.cluster.typed.SingletonActor;

/**
 * Wakes agents that owe others sends or replies after their node died (a cluster singleton, like
 * the lease rescuer). An agent delivers its outbox itself, after every write and once recovered;
 * but an agent whose node died is recovered only when something next asks for it. The read model
 * counts each agent's undelivered items ({@code agent_schedule.outbox}); every {@code
 * rota.calls.sweep-interval} the sweeper tells each agent whose count is above zero and whose row
 * has not changed for {@code sweep-quiet} to deliver ({@link AgentEntity.DeliverOwed}), which
 * recovers it on a live node. Telling an agent that is delivering already changes nothing.
 */
public final class OutboxSweeper {
  private OutboxSweeper() {}

  /** The sweeper's messages (its own). */
  public sealed interface Command {}

  private enum Tick implements Command {
    INSTANCE
  }

  private record Found(List<String> agents, Throwable failure) implements Command {}

  /** Starts the singleton and returns its proxy; call once per node. */
  public static ActorRef<Command> init(ActorSystem<?> system, ReadModel readModel) {
    var config = system.settings().config().getConfig("rota.calls");
    return ClusterSingleton.get(system)
        .init(
            SingletonActor.of(
                Behaviors.supervise(
                        create(
                            readModel,
                            config.getDuration("sweep-interval"),
                            config.getDuration("sweep-quiet"),
                            config.getInt("sweep-batch"),
                            Clock.systemUTC()))
                    .onFailure(SupervisorStrategy.restart()),
                "OutboxSweeper"));
  }

  public static Behavior<Command> create(
      ReadModel readModel, Duration interval, Duration quiet, int batch, Clock clock) {
    return Behaviors.setup(
        context ->
            Behaviors.withTimers(
                timers -> {
                  timers.startTimerWithFixedDelay(Tick.INSTANCE, interval);
                  ClusterSharding sharding = ClusterSharding.get(context.getSystem());
                  Executor blocking =
                      context.getSystem().dispatchers().lookup(DispatcherSelector.blocking());
                  return Behaviors.receive(Command.class)
                      .onMessageEquals(
                          Tick.INSTANCE,
                          () -> {
                            context.pipeToSelf(
                                CompletableFuture.supplyAsync(
                                    () ->
                                        readModel.agentsOwing(clock.instant().minus(quiet), batch),
                                    blocking),
                                Found::new);
                            return Behaviors.same();
                          })
                      .onMessage(
                          Found.class,
                          found -> {
                            if (found.failure() != null) {
                              context
                                  .getLog()
                                  .warn(
                                      "could not read the agents that owe sends: {}",
                                      found.failure().getMessage());
                            } else {
                              for (String agent : found.agents()) {
                                sharding
                                    .entityRefFor(AgentEntity.ENTITY_TYPE_KEY, agent)
                                    .tell(AgentEntity.DeliverOwed.INSTANCE);
                              }
                            }
                            return Behaviors.same();
                          })
                      .build();
                }));
  }
}
