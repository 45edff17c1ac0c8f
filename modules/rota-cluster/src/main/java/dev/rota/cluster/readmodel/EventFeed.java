package dev.rota.cluster.readmodel;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.rota.cluster.agent.AgentEntity;
import dev.rota.cluster.agent.AgentEvents.ActivationCompleted;
import dev.rota.cluster.agent.AgentEvents.ActivationFailed;
import dev.rota.cluster.agent.AgentEvents.CallResolved;
import dev.rota.cluster.agent.AgentEvents.LeaseExpired;
import dev.rota.cluster.agent.AgentEvents.LeaseGranted;
import dev.rota.cluster.agent.AgentEvents.LeaseInterrupted;
import dev.rota.cluster.agent.AgentEvents.NotificationReceived;
import dev.rota.cluster.agent.AgentEvents.NotificationRejected;
import dev.rota.cluster.agent.AgentEvents.NotificationSteered;
import dev.rota.cluster.health.RunnerHealth;
import dev.rota.cluster.system.SystemControl;
import dev.rota.cluster.system.SystemControl.PauseState;
import dev.rota.core.model.CallState;
import dev.rota.core.model.DeadLetter;
import dev.rota.core.model.OpenCall;
import dev.rota.core.tenant.AgentKeys;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.pekko.NotUsed;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.persistence.jdbc.query.javadsl.JdbcReadJournal;
import org.apache.pekko.persistence.query.EventEnvelope;
import org.apache.pekko.persistence.query.Offset;
import org.apache.pekko.persistence.query.PersistenceQuery;
import org.apache.pekko.persistence.query.Sequence;
import org.apache.pekko.stream.javadsl.Source;

/**
 * The cluster's events, one JSON object each (docs/api.md, "Events"), in the journal's order: every
 * journal event after a position, read as one ordered stream ({@link
 * TagIndexReadJournalDao#ALL_EVENTS}) with the read journal's own gap handling, so an event is
 * never delivered after one written later. Agents' events, the system pause switch's and runner
 * health's (degraded, draining, restored) are shown; the rest of the journal is skipped. No
 * publishing on the hot path.
 *
 * <p>Every object has a {@link Cursor}: the journal ordering of the event it comes from, and its
 * index among the objects of that event (a failure that dead-letters notifications yields several).
 * A feed resumed after a cursor continues with the next object: no gap, no duplicate, for as long
 * as the journal keeps the events (until retention removes them, decision 124). The feed lags the
 * journal by the read journal's refresh interval; each materialization polls the journal once per
 * interval, so it suits a bounded number of admin clients.
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
  public static final String RUNNER_DEGRADED = "runner.degraded";
  public static final String RUNNER_DRAINING = "runner.draining";
  public static final String RUNNER_RESTORED = "runner.restored";
  public static final String CALL_SENT = "call.sent";
  public static final String CALL_ANSWERED = "call.answered";
  public static final String CALL_FAILED = "call.failed";
  public static final String CALL_TIMED_OUT = "call.timed-out";
  public static final String NOTIFICATION_STEERED = "notification.steered";
  public static final String LEASE_INTERRUPTED = "lease.interrupted";
  public static final String NOTIFICATION_REJECTED = "notification.rejected";

  /** Every type the feed shows. */
  public static final List<String> TYPES =
      List.of(
          NOTIFICATION_ACCEPTED,
          LEASE_GRANTED,
          ACTIVATION_COMPLETED,
          ACTIVATION_FAILED,
          LEASE_EXPIRED,
          DEAD_LETTERED,
          SYSTEM_PAUSED,
          SYSTEM_RESUMED,
          RUNNER_DEGRADED,
          RUNNER_DRAINING,
          RUNNER_RESTORED,
          NOTIFICATION_STEERED,
          LEASE_INTERRUPTED,
          NOTIFICATION_REJECTED,
          CALL_SENT,
          CALL_ANSWERED,
          CALL_FAILED,
          CALL_TIMED_OUT);

  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;
  private static final String AGENT_PREFIX = AgentEntity.ENTITY_TYPE_KEY.name() + "|";

  private EventFeed() {}

  /**
   * Where an object stands in the feed: the journal ordering of its event and its index among that
   * event's objects. Rendered {@code "<ordering>"} for the first object of an event and {@code
   * "<ordering>.<index>"} for the others; compared as the pair.
   */
  public record Cursor(long ordering, int index) {
    private static final Pattern FORMAT = Pattern.compile("(\\d{1,18})(?:\\.(\\d{1,6}))?");

    /** The cursor of an id this feed rendered; empty for anything else. */
    public static Optional<Cursor> parse(String id) {
      if (id == null) {
        return Optional.empty();
      }
      Matcher m = FORMAT.matcher(id.strip());
      if (!m.matches()) {
        return Optional.empty();
      }
      return Optional.of(
          new Cursor(
              Long.parseLong(m.group(1)), m.group(2) == null ? 0 : Integer.parseInt(m.group(2))));
    }

    public boolean isAfter(Cursor other) {
      return ordering > other.ordering || (ordering == other.ordering && index > other.index);
    }

    @Override
    public String toString() {
      return index == 0 ? Long.toString(ordering) : ordering + "." + index;
    }
  }

  /** One object of the feed and its position. */
  public record Entry(Cursor cursor, ObjectNode event) {}

  /**
   * Every object after {@code after} (exclusive): the rest of its event's objects, then every later
   * event's. {@code new Cursor(head, Integer.MAX_VALUE)} with {@code head} from {@link
   * ReadModel#journalHead()} follows only what is written from now on. Never completes by itself;
   * cancel it to stop.
   */
  public static Source<Entry, NotUsed> after(ActorSystem<?> system, Cursor after) {
    return after(system, after, Set.of());
  }

  /**
   * {@link #after(ActorSystem, Cursor)} of the agents of {@code tenants} only (empty: every event),
   * chosen by the journal's query: a tenant's replay from the start reads its own events, not the
   * whole journal's, out of the database.
   */
  public static Source<Entry, NotUsed> after(
      ActorSystem<?> system, Cursor after, Set<String> tenants) {
    JdbcReadJournal journal =
        PersistenceQuery.get(system.classicSystem())
            .getReadJournalFor(JdbcReadJournal.class, JdbcReadJournal.Identifier());
    // From the cursor's own event (offsets are exclusive), whose earlier objects are skipped.
    Offset from = Offset.sequence(Math.max(0, after.ordering() - 1));
    String stream =
        tenants.isEmpty()
            ? TagIndexReadJournalDao.ALL_EVENTS
            : TagIndexReadJournalDao.tenantEvents(tenants);
    return journal
        .eventsByTag(stream, from)
        .mapConcat(EventFeed::entries)
        .filter(entry -> entry.cursor().isAfter(after));
  }

  /** The feed's objects for one journal envelope, with their cursors. */
  static List<Entry> entries(EventEnvelope envelope) {
    long ordering = ((Sequence) envelope.offset()).value();
    List<ObjectNode> objects = toJson(envelope);
    List<Entry> entries = new ArrayList<>(objects.size());
    for (int i = 0; i < objects.size(); i++) {
      entries.add(new Entry(new Cursor(ordering, i), objects.get(i)));
    }
    return entries;
  }

  static ObjectNode pauseJson(PauseState state) {
    ObjectNode json = JSON.objectNode();
    json.put("type", state.paused() ? SYSTEM_PAUSED : SYSTEM_RESUMED);
    json.put("at", state.since().toString());
    json.putNull("agentId");
    return json;
  }

  /** A runner's degradation, drain or restore; {@code agentId} null, {@code runnerId} set. */
  static ObjectNode runnerJson(RunnerHealth.Event event) {
    if (event instanceof RunnerHealth.RunnerDegraded e) {
      ObjectNode json = base(RUNNER_DEGRADED, e.at(), null).put("runnerId", e.runnerId());
      return json.put("reason", e.reason())
          .put("until", e.until() == null ? null : e.until().toString())
          .put("reportedByRunner", e.byRunner());
    }
    if (event instanceof RunnerHealth.RunnerDraining e) {
      return base(RUNNER_DRAINING, e.at(), null).put("runnerId", e.runnerId());
    }
    RunnerHealth.RunnerRestored e = (RunnerHealth.RunnerRestored) event;
    return base(RUNNER_RESTORED, e.at(), null)
        .put("runnerId", e.runnerId())
        .put("reason", e.reason());
  }

  /** The feed's objects for one journal envelope: none for events the API does not show. */
  static List<ObjectNode> toJson(EventEnvelope envelope) {
    String persistenceId = envelope.persistenceId();
    if (envelope.event() instanceof SystemControl.PauseChanged changed) {
      return List.of(pauseJson(new PauseState(changed.paused(), changed.at())));
    }
    if (envelope.event() instanceof RunnerHealth.Event runnerEvent) {
      return List.of(runnerJson(runnerEvent));
    }
    if (!persistenceId.startsWith(AGENT_PREFIX)) {
      return List.of();
    }
    return toJson(persistenceId.substring(AGENT_PREFIX.length()), envelope.event());
  }

  /** The feed's objects for one agent event: none for events the API does not show. */
  public static List<ObjectNode> toJson(String agentId, Object event) {
    if (event instanceof NotificationReceived e) {
      ObjectNode accepted =
          base(NOTIFICATION_ACCEPTED, e.at(), agentId)
              .put("notificationId", e.notification().notificationId())
              .put("notificationType", e.notification().type());
      if (e.notification().call() != null) {
        accepted.put("callId", e.notification().call().callId());
      }
      return List.of(accepted);
    }
    if (event instanceof LeaseGranted e) {
      return List.of(
          base(LEASE_GRANTED, e.at(), agentId)
              .put("leaseId", e.lease().leaseId())
              .put("runnerId", e.lease().runnerId())
              .put("kind", e.lease().kind().wireName()));
    }
    if (event instanceof ActivationCompleted e) {
      List<ObjectNode> out = new ArrayList<>();
      out.add(base(ACTIVATION_COMPLETED, e.at(), agentId).put("leaseId", e.leaseId()));
      for (OpenCall call : e.calls()) {
        out.add(
            base(CALL_SENT, e.at(), agentId)
                .put("callId", call.callId())
                .put("to", call.targetAgentId()));
      }
      return out;
    }
    if (event instanceof CallResolved e) {
      return List.of(
          base(CallState.historyType(e.status()), e.at(), agentId).put("callId", e.callId()));
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
    if (event instanceof NotificationSteered e) {
      return List.of(
          base(NOTIFICATION_STEERED, e.at(), agentId)
              .put("notificationId", e.notificationId())
              .put("leaseId", e.leaseId()));
    }
    if (event instanceof LeaseInterrupted e) {
      return List.of(
          base(LEASE_INTERRUPTED, e.at(), agentId)
              .put("leaseId", e.leaseId())
              .put("notificationId", e.notificationId()));
    }
    if (event instanceof NotificationRejected e) {
      return List.of(
          base(NOTIFICATION_REJECTED, e.at(), agentId)
              .put("notificationType", e.notificationType())
              .put("leaseId", e.leaseId()));
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

  /**
   * The fields every event has: its type, time and agent — the agent's id within its tenant, and
   * the tenant ({@code null} for events of no agent).
   */
  private static ObjectNode base(String type, Instant at, String agentKey) {
    ObjectNode json = JSON.objectNode();
    json.put("type", type);
    json.put("at", at == null ? null : at.toString());
    json.put("agentId", agentKey == null ? null : AgentKeys.agentIdOf(agentKey));
    json.put("tenant", agentKey == null ? null : AgentKeys.tenantOf(agentKey));
    return json;
  }
}
