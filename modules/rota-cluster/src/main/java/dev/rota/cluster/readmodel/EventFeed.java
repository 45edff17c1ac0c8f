package dev.rota.cluster.readmodel;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.rota.cluster.agent.AgentEntity;
import dev.rota.cluster.agent.AgentEvents.ActivationCompleted;
import dev.rota.cluster.agent.AgentEvents.ActivationFailed;
import dev.rota.cluster.agent.AgentEvents.LeaseExpired;
import dev.rota.cluster.agent.AgentEvents.LeaseGranted;
import dev.rota.cluster.agent.AgentEvents.NotificationReceived;
import dev.rota.cluster.system.SystemControl;
import dev.rota.cluster.system.SystemControl.PauseState;
import dev.rota.core.model.DeadLetter;
import dev.rota.core.model.Partitions;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.pekko.NotUsed;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.pubsub.Topic;
import org.apache.pekko.japi.Pair;
import org.apache.pekko.persistence.jdbc.query.javadsl.JdbcReadJournal;
import org.apache.pekko.persistence.query.EventEnvelope;
import org.apache.pekko.persistence.query.Offset;
import org.apache.pekko.persistence.query.PersistenceQuery;
import org.apache.pekko.stream.OverflowStrategy;
import org.apache.pekko.stream.javadsl.Source;
import org.apache.pekko.stream.typed.javadsl.ActorSource;

/**
 * The cluster's events as they happen, one JSON object each (API.md "Events"): the agents' journal
 * read by tag, every partition merged, so every node sees every agent's events without any
 * publishing on the hot path; plus the system pause switch from its topic.
 *
 * <p>Events of one agent come in journal order (an agent lives in one partition, and one tag's
 * stream is ordered); events of different agents interleave as the partitions' polls return them.
 * The feed lags the journal by the read journal's refresh interval. Each materialization polls the
 * journal once per partition per refresh interval, so it suits a few admin clients, not thousands.
 */
public final class EventFeed {
  public static final String NOTIFICATION_ACCEPTED = "notification.accepted";
  public static final String LEASE_GRANTED = "lease.granted";
  public static final String ACTIVATION_COMPLETED = "activation.completed";
  public static final String ACTIVATION_FAILED = "activation.failed";
  public static final String LEASE_EXPIRED = "lease.expired";
  public static final String DEAD_LETTERED = "notification.dead_lettered";
  public static final String SYSTEM_PAUSED = "system.paused";
  public static final String SYSTEM_RESUMED = "system.resumed";

  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;
  private static final String AGENT_PREFIX = AgentEntity.ENTITY_TYPE_KEY.name() + "|";
  private static final int PAUSE_BUFFER = 16;

  private EventFeed() {}

  /**
   * Every agent event written after {@code fromOrdering} (exclusive; see {@link
   * ReadModel#journalHead()}) and every pause switch change from materialization on. Never
   * completes by itself; cancel it to stop.
   */
  public static Source<ObjectNode, NotUsed> live(
      ActorSystem<?> system, int partitions, long fromOrdering) {
    if (partitions < 1) {
      throw new IllegalArgumentException("partitions must be positive: " + partitions);
    }
    JdbcReadJournal journal =
        PersistenceQuery.get(system.classicSystem())
            .getReadJournalFor(JdbcReadJournal.class, JdbcReadJournal.Identifier());
    Offset from = Offset.sequence(fromOrdering);
    Source<ObjectNode, NotUsed> agents =
        Source.range(0, partitions - 1)
            .flatMapMerge(partitions, p -> journal.eventsByTag(Partitions.tag(p), from))
            .mapConcat(EventFeed::toJson);
    return agents.merge(pauses(SystemControl.topic(system)));
  }

  /**
   * The pause switch's changes from materialization on: subscribes to the topic when the stream
   * starts and unsubscribes when it ends. The switch also republishes its unchanged state after
   * recovery (fail-over); those carry the time of an earlier change and are dropped, as are
   * repeats.
   */
  static Source<ObjectNode, NotUsed> pauses(ActorRef<Topic.Command<PauseState>> topic) {
    return ActorSource.<PauseState>actorRef(
            message -> false,
            message -> Optional.empty(),
            PAUSE_BUFFER,
            OverflowStrategy.dropHead())
        .watchTermination(
            (subscriber, done) -> {
              topic.tell(Topic.subscribe(subscriber));
              done.whenComplete((d, e) -> topic.tell(Topic.unsubscribe(subscriber)));
              return NotUsed.getInstance();
            })
        .statefulMap(
            () -> Instant.now(),
            (notBefore, state) -> {
              if (state.since() == null || state.since().isBefore(notBefore)) {
                return Pair.create(notBefore, Optional.<ObjectNode>empty());
              }
              // A later change must be strictly later: drops a republished same state.
              return Pair.create(state.since().plusNanos(1), Optional.of(pauseJson(state)));
            },
            notBefore -> Optional.empty())
        .filter(Optional::isPresent)
        .map(Optional::get);
  }

  static ObjectNode pauseJson(PauseState state) {
    ObjectNode json = JSON.objectNode();
    json.put("type", state.paused() ? SYSTEM_PAUSED : SYSTEM_RESUMED);
    json.put("at", state.since().toString());
    json.putNull("agentId");
    return json;
  }

  /** The feed's objects for one journal envelope: none for events the API does not show. */
  static List<ObjectNode> toJson(EventEnvelope envelope) {
    String persistenceId = envelope.persistenceId();
    if (!persistenceId.startsWith(AGENT_PREFIX)) {
      return List.of();
    }
    return toJson(persistenceId.substring(AGENT_PREFIX.length()), envelope.event());
  }

  /** The feed's objects for one agent event: none for events the API does not show. */
  public static List<ObjectNode> toJson(String agentId, Object event) {
    if (event instanceof NotificationReceived e) {
      return List.of(
          base(NOTIFICATION_ACCEPTED, e.at(), agentId)
              .put("notificationId", e.notification().notificationId())
              .put("notificationType", e.notification().type()));
    }
    if (event instanceof LeaseGranted e) {
      return List.of(
          base(LEASE_GRANTED, e.at(), agentId)
              .put("leaseId", e.lease().leaseId())
              .put("runnerId", e.lease().runnerId())
              .put("kind", e.lease().kind().wireName()));
    }
    if (event instanceof ActivationCompleted e) {
      return List.of(base(ACTIVATION_COMPLETED, e.at(), agentId).put("leaseId", e.leaseId()));
    }
    if (event instanceof ActivationFailed e) {
      List<ObjectNode> out = new ArrayList<>();
      out.add(
          base(ACTIVATION_FAILED, e.at(), agentId)
              .put("leaseId", e.leaseId())
              .put("action", e.action() == null ? null : e.action().wireName())
              .put("error", e.error()));
      addDeadLetters(out, agentId, e.at(), e.deadLettered());
      return out;
    }
    if (event instanceof LeaseExpired e) {
      List<ObjectNode> out = new ArrayList<>();
      out.add(base(LEASE_EXPIRED, e.at(), agentId).put("leaseId", e.leaseId()));
      addDeadLetters(out, agentId, e.at(), e.deadLettered());
      return out;
    }
    return List.of();
  }

  private static void addDeadLetters(
      List<ObjectNode> out, String agentId, Instant at, List<DeadLetter> deadLettered) {
    if (deadLettered == null) {
      return;
    }
    for (DeadLetter dl : deadLettered) {
      out.add(
          base(DEAD_LETTERED, dl.deadAt() == null ? at : dl.deadAt(), agentId)
              .put("notificationId", dl.notification().notificationId())
              .put("deadLetterId", dl.id()));
    }
  }

  private static ObjectNode base(String type, Instant at, String agentId) {
    ObjectNode json = JSON.objectNode();
    json.put("type", type);
    json.put("at", at == null ? null : at.toString());
    json.put("agentId", agentId);
    return json;
  }
}
