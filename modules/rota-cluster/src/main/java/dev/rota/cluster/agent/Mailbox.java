package dev.rota.cluster.agent;

import dev.rota.cluster.agent.AgentEntity.DeliverReply;
import dev.rota.cluster.agent.AgentEntity.Notify;
import dev.rota.cluster.agent.AgentEntity.Reply;
import dev.rota.core.model.CallKeys;
import dev.rota.core.model.OutboxItem;
import java.time.Duration;
import java.util.concurrent.CompletionStage;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.cluster.sharding.typed.javadsl.ClusterSharding;

/**
 * Where an agent's outbox items go: to the target agent's entity, wherever sharding keeps it, or
 * for the reply to a caller outside Rota, to that call's own entity. An interface so an entity test
 * can deliver to entities it runs itself.
 */
@FunctionalInterface
public interface Mailbox {

  /** Hands {@code item} to its target; the answer is the target's reply. */
  CompletionStage<Reply> deliver(OutboxItem item, Duration timeout);

  /** The command an agent target gets for {@code item}, answering to {@code replyTo}. */
  static AgentEntity.Command commandFor(
      OutboxItem item, org.apache.pekko.actor.typed.ActorRef<Reply> replyTo) {
    return item.isReply()
        ? new DeliverReply(item.replyTo(), item.status(), item.payload(), replyTo)
        : new Notify(
            item.type(), item.payload(), item.dedupeKey(), item.newInput(), item.call(), replyTo);
  }

  /** Through cluster sharding, to any node. */
  static Mailbox sharded(ActorSystem<?> system) {
    return (item, timeout) -> {
      ClusterSharding sharding = ClusterSharding.get(system);
      if (CallKeys.isExternalCall(item.targetKey())) {
        return sharding
            .entityRefFor(CallEntity.ENTITY_TYPE_KEY, item.targetKey())
            .ask(replyTo -> new CallEntity.Answer(item.status(), item.payload(), replyTo), timeout);
      }
      return sharding
          .entityRefFor(AgentEntity.ENTITY_TYPE_KEY, item.targetKey())
          .ask(replyTo -> commandFor(item, replyTo), timeout);
    };
  }
}
