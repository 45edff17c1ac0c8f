package dev.rota.cluster.health;

import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Extension;
import org.apache.pekko.actor.typed.ExtensionId;
import org.apache.pekko.actor.typed.Props;
import org.apache.pekko.actor.typed.pubsub.Topic;

/**
 * This node's references for {@link RunnerHealth}, an extension: one topic actor per node for the
 * blocks, and the singleton's proxy once this node started it (none on a node that did not, so
 * {@link RunnerHealth#report} there tells no one).
 */
final class RunnerHealthRefs implements Extension {
  final ActorRef<Topic.Command<RunnerHealth.Blocks>> topic;
  volatile ActorRef<RunnerHealth.Command> proxy;

  private RunnerHealthRefs(ActorSystem<?> system) {
    topic =
        system.systemActorOf(
            Topic.create(RunnerHealth.Blocks.class, RunnerHealth.TOPIC),
            "rota-runner-blocks-topic",
            Props.empty());
  }

  static RunnerHealthRefs get(ActorSystem<?> system) {
    return Id.INSTANCE.apply(system);
  }

  private static final class Id extends ExtensionId<RunnerHealthRefs> {
    static final Id INSTANCE = new Id();

    @Override
    public RunnerHealthRefs createExtension(ActorSystem<?> system) {
      return new RunnerHealthRefs(system);
    }
  }
}
