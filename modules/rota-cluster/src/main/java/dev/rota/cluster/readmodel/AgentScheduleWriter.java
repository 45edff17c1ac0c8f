package dev.rota.cluster.readmodel;

import dev.rota.cluster.agent.AgentEvents.ActivationCompleted;
import dev.rota.cluster.agent.AgentEvents.ActivationEnded;
import dev.rota.cluster.agent.AgentEvents.ActivationFailed;
import dev.rota.cluster.agent.AgentEvents.AgentDeregistered;
import dev.rota.cluster.agent.AgentEvents.AgentPaused;
import dev.rota.cluster.agent.AgentEvents.AgentRegistered;
import dev.rota.cluster.agent.AgentEvents.AgentResumed;
import dev.rota.cluster.agent.AgentEvents.AgentUpdated;
import dev.rota.cluster.agent.AgentEvents.DeadLetterRedriven;
import dev.rota.cluster.agent.AgentEvents.Event;
import dev.rota.cluster.agent.AgentEvents.LeaseExpired;
import dev.rota.cluster.agent.AgentEvents.LeaseGranted;
import dev.rota.cluster.agent.AgentEvents.LeaseRenewed;
import dev.rota.cluster.agent.AgentEvents.NotificationReceived;
import dev.rota.core.model.ActivationKind;
import dev.rota.core.model.AgentConfig;
import dev.rota.core.model.DeadLetter;
import dev.rota.core.model.FailureAction;
import dev.rota.core.model.Notification;
import dev.rota.core.model.Partitions;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Applies agent events to {@code agent_schedule}, {@code dead_letter} and {@code rota_counter} on
 * one connection, inside the projection's transaction. Plain SQL that H2 and PostgreSQL both run:
 * every change of an agent's row is an {@code UPDATE ... WHERE seq_nr < ?} (or a {@code DELETE}),
 * so an event that is not newer than the row changes nothing, and its dead letters and counts are
 * skipped with it. Only a registration inserts, after its update found no row.
 *
 * <p>Rows of one agent are written only by its partition's projection, and counter rows are keyed
 * by partition, so no two transactions race on a row: an update that finds no row can insert
 * without an upsert.
 *
 * <p>The guard cannot see past a deregistration, which deletes the row: re-delivering an agent's
 * events from before it would bring the row back. The projection's offsets prevent that; to rebuild
 * the read model, empty {@code agent_schedule}, {@code dead_letter} and {@code rota_counter}
 * together with the offsets.
 */
final class AgentScheduleWriter implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(AgentScheduleWriter.class);

  private static final String GUARD =
      ", seq_nr = ?, updated_at = ? where agent_id = ? and seq_nr < ?";
  private static final String REGISTERED =
      "partition_id = ?, name = ?, capabilities = ?, priority = ?,"
          + " min_activation_interval_seconds = ?, unread = 0, oldest_unread_at = null,"
          + " last_activated_at = null, activation_count = 0, lease_id = null,"
          + " lease_runner_id = null, lease_kind = null, lease_expires_at = null, paused = false,"
          + " snoozed_until = null, dead_letters = 0, registered_at = ?";
  private static final String INSERT_AGENT =
      "insert into agent_schedule (agent_id, partition_id, name, capabilities, priority,"
          + " min_activation_interval_seconds, registered_at, seq_nr, updated_at)"
          + " values (?, ?, ?, ?, ?, ?, ?, ?, ?)";
  private static final String CONFIGURED =
      "name = ?, capabilities = ?, priority = ?, min_activation_interval_seconds = ?";
  private static final String NOTIFIED = "unread = unread + 1, oldest_unread_at = " + earliest();
  private static final String LEASED =
      "lease_id = ?, lease_runner_id = ?, lease_kind = ?, lease_expires_at = ?";
  private static final String RENEWED = "lease_expires_at = ?";
  private static final String ENDED =
      "lease_id = null, lease_runner_id = null, lease_kind = null, lease_expires_at = null,"
          + " unread = ?, oldest_unread_at = ?, dead_letters = dead_letters + ?";
  private static final String COMPLETED =
      ENDED + ", last_activated_at = ?, activation_count = activation_count + 1";
  private static final String SNOOZED = ENDED + ", snoozed_until = ?";
  private static final String PAUSED = "paused = ?";
  private static final String REDRIVEN =
      "dead_letters = case when dead_letters > 0 then dead_letters - 1 else 0 end,"
          + " unread = unread + 1, oldest_unread_at = "
          + earliest();
  private static final String INSERT_DEAD_LETTER =
      "insert into dead_letter (id, agent_id, notification_id, type, payload, attempts, reason,"
          + " dead_at) values (?, ?, ?, ?, ?, ?, ?, ?)";

  private final Connection connection;
  private final int partition;
  private final int partitions;
  private final Map<String, PreparedStatement> statements = new HashMap<>();
  private final Map<Counter, Long> counts = new EnumMap<>(Counter.class);

  /**
   * @param partition the projection's partition: the counters it writes are its own rows
   * @param partitions the partition count, for each agent row's {@code partition_id}
   */
  AgentScheduleWriter(Connection connection, int partition, int partitions) {
    this.connection = connection;
    this.partition = partition;
    this.partitions = partitions;
  }

  /**
   * {@code oldest_unread_at} or the bound instant, whichever is earlier (LEAST is not portable).
   */
  private static String earliest() {
    return "case when oldest_unread_at is not null and oldest_unread_at <= ?"
        + " then oldest_unread_at else ? end";
  }

  /**
   * Applies one event of the agent.
   *
   * @return false when the event was ignored: not newer than the row, or the agent has no row
   */
  boolean apply(String agentId, long seqNr, Event event) throws SQLException {
    if (event instanceof AgentRegistered e) {
      return registered(agentId, seqNr, e);
    }
    if (event instanceof AgentDeregistered) {
      return deregistered(agentId, seqNr);
    }
    boolean applied = update(agentId, seqNr, event);
    if (!applied) {
      log.debug("ignored {} #{} of agent {}: not newer than its row", event, seqNr, agentId);
    }
    return applied;
  }

  private boolean update(String agentId, long seqNr, Event event) throws SQLException {
    if (event instanceof AgentUpdated e) {
      return update(agentId, seqNr, e.at(), CONFIGURED, s -> bindConfig(s, 1, agentId, e.config()));
    }
    if (event instanceof NotificationReceived e) {
      Instant at = e.notification().receivedAt();
      return update(agentId, seqNr, e.at(), NOTIFIED, s -> bindEarliest(s, 1, at))
          && counted(Counter.NOTIFICATIONS_ACCEPTED, 1);
    }
    if (event instanceof LeaseGranted e) {
      return update(agentId, seqNr, e.at(), LEASED, s -> bindLease(s, e))
          && counted(
              e.lease().kind() == ActivationKind.EXPLORATION
                  ? Counter.ACTIVATIONS_EXPLORATION
                  : Counter.ACTIVATIONS_INBOX,
              1);
    }
    if (event instanceof LeaseRenewed e) {
      return update(
          agentId,
          seqNr,
          e.at(),
          RENEWED,
          s -> {
            Sql.setInstant(s, 1, e.expiresAt());
            return 2;
          });
    }
    if (event instanceof ActivationEnded e) {
      return ended(agentId, seqNr, e);
    }
    if (event instanceof AgentPaused || event instanceof AgentResumed) {
      boolean paused = event instanceof AgentPaused;
      return update(
          agentId,
          seqNr,
          event.at(),
          PAUSED,
          s -> {
            s.setBoolean(1, paused);
            return 2;
          });
    }
    if (event instanceof DeadLetterRedriven e) {
      return update(agentId, seqNr, e.at(), REDRIVEN, s -> bindEarliest(s, 1, e.at()))
          && deleteDeadLetter(e.deadLetterId());
    }
    // A new event type must be handled here; failing stops the projection rather than let the
    // read model drift silently.
    throw new IllegalArgumentException("unknown agent event " + event.getClass().getName());
  }

  private boolean registered(String agentId, long seqNr, AgentRegistered e) throws SQLException {
    AgentConfig config = e.config();
    int partitionId = Partitions.of(agentId, partitions);
    boolean reset =
        update(
            agentId,
            seqNr,
            e.at(),
            REGISTERED,
            s -> {
              s.setInt(1, partitionId);
              int i = bindConfig(s, 2, agentId, config);
              Sql.setInstant(s, i, e.at());
              return i + 1;
            });
    if (reset) {
      // A registration starts afresh (AgentState.registered): nothing of an older life remains.
      deleteDeadLettersOf(agentId);
      return true;
    }
    if (rowExists(agentId)) {
      return false;
    }
    PreparedStatement s = statement(INSERT_AGENT);
    s.setString(1, agentId);
    s.setInt(2, partitionId);
    int i = bindConfig(s, 3, agentId, config);
    Sql.setInstant(s, i++, e.at());
    s.setLong(i++, seqNr);
    Sql.setInstant(s, i, e.at());
    s.executeUpdate();
    return true;
  }

  private boolean deregistered(String agentId, long seqNr) throws SQLException {
    PreparedStatement s = statement("delete from agent_schedule where agent_id = ? and seq_nr < ?");
    s.setString(1, agentId);
    s.setLong(2, seqNr);
    if (s.executeUpdate() == 0) {
      return false;
    }
    deleteDeadLettersOf(agentId);
    return true;
  }

  private boolean ended(String agentId, long seqNr, ActivationEnded e) throws SQLException {
    // COMPLETED and SNOOZED bind one instant after ENDED's parameters.
    String assignments = ENDED;
    Instant extra = null;
    Counter counter;
    if (e instanceof ActivationCompleted) {
      assignments = COMPLETED;
      extra = e.at();
      counter = Counter.ACTIVATIONS_COMPLETED;
    } else if (e instanceof ActivationFailed f) {
      if (f.action() == FailureAction.SNOOZE) {
        assignments = SNOOZED;
        extra = f.snoozedUntil();
      }
      counter = Counter.ACTIVATIONS_FAILED;
    } else if (e instanceof LeaseExpired) {
      counter = Counter.ACTIVATIONS_EXPIRED;
    } else {
      throw new IllegalArgumentException("unknown activation end " + e.getClass().getName());
    }
    Instant extraValue = extra;
    boolean hasExtra = !assignments.equals(ENDED);
    boolean applied =
        update(
            agentId,
            seqNr,
            e.at(),
            assignments,
            s -> {
              s.setInt(1, e.inboxAfter().unread());
              Sql.setInstant(s, 2, e.inboxAfter().oldestUnreadAt());
              s.setInt(3, e.deadLettered().size());
              if (hasExtra) {
                Sql.setInstant(s, 4, extraValue);
                return 5;
              }
              return 4;
            });
    if (!applied) {
      return false;
    }
    for (DeadLetter dead : e.deadLettered()) {
      insertDeadLetter(agentId, dead);
    }
    counted(counter, 1);
    return counted(Counter.NOTIFICATIONS_DEAD_LETTERED, e.deadLettered().size());
  }

  private void insertDeadLetter(String agentId, DeadLetter dead) throws SQLException {
    // A notification can die again after a redrive; its row went with the redrive, but a stray
    // row must not stop the projection on a duplicate key.
    deleteDeadLetter(dead.id());
    Notification n = dead.notification();
    PreparedStatement s = statement(INSERT_DEAD_LETTER);
    s.setString(1, dead.id());
    s.setString(2, agentId);
    s.setString(3, n.notificationId());
    s.setString(4, Sql.fit(n.type(), 256));
    s.setString(5, n.payload() == null ? null : n.payload().toString());
    s.setInt(6, n.attempts());
    s.setString(7, Sql.fit(dead.reason(), 2000));
    Sql.setInstant(s, 8, dead.deadAt());
    s.executeUpdate();
  }

  private boolean deleteDeadLetter(String deadLetterId) throws SQLException {
    PreparedStatement s = statement("delete from dead_letter where id = ?");
    s.setString(1, deadLetterId);
    s.executeUpdate();
    return true;
  }

  private void deleteDeadLettersOf(String agentId) throws SQLException {
    PreparedStatement s = statement("delete from dead_letter where agent_id = ?");
    s.setString(1, agentId);
    s.executeUpdate();
  }

  private boolean rowExists(String agentId) throws SQLException {
    PreparedStatement s = statement("select 1 from agent_schedule where agent_id = ?");
    s.setString(1, agentId);
    try (ResultSet rs = s.executeQuery()) {
      return rs.next();
    }
  }

  /** Adds this transaction's counts to the partition's counter rows. */
  void flushCounters() throws SQLException {
    for (Map.Entry<Counter, Long> entry : counts.entrySet()) {
      PreparedStatement update =
          statement(
              "update rota_counter set total = total + ? where name = ? and partition_id = ?");
      update.setLong(1, entry.getValue());
      update.setString(2, entry.getKey().key());
      update.setInt(3, partition);
      if (update.executeUpdate() == 0) {
        PreparedStatement insert =
            statement("insert into rota_counter (name, partition_id, total) values (?, ?, ?)");
        insert.setString(1, entry.getKey().key());
        insert.setInt(2, partition);
        insert.setLong(3, entry.getValue());
        insert.executeUpdate();
      }
    }
    counts.clear();
  }

  /** Adds to a counter of this transaction; true, so it chains after an applied update. */
  private boolean counted(Counter counter, long n) {
    if (n > 0) {
      counts.merge(counter, n, Long::sum);
    }
    return true;
  }

  @FunctionalInterface
  private interface Binder {
    /** Binds the assignment parameters from index 1; returns the next free index. */
    int bind(PreparedStatement statement) throws SQLException;
  }

  private boolean update(String agentId, long seqNr, Instant at, String assignments, Binder binder)
      throws SQLException {
    PreparedStatement s = statement("update agent_schedule set " + assignments + GUARD);
    int i = binder.bind(s);
    s.setLong(i++, seqNr);
    Sql.setInstant(s, i++, at);
    s.setString(i++, agentId);
    s.setLong(i, seqNr);
    return s.executeUpdate() == 1;
  }

  private static int bindConfig(PreparedStatement s, int from, String agentId, AgentConfig config)
      throws SQLException {
    int i = from;
    s.setString(i++, Sql.fit(config.name(), 256));
    s.setString(i++, capabilities(agentId, config));
    s.setInt(i++, config.priority());
    s.setLong(i++, config.minActivationIntervalSeconds());
    return i;
  }

  private static int bindEarliest(PreparedStatement s, int from, Instant at) throws SQLException {
    Sql.setInstant(s, from, at);
    Sql.setInstant(s, from + 1, at);
    return from + 2;
  }

  private static int bindLease(PreparedStatement s, LeaseGranted e) throws SQLException {
    s.setString(1, Sql.fit(e.lease().leaseId(), 512));
    s.setString(2, Sql.fit(e.lease().runnerId(), 256));
    s.setString(3, e.lease().kind().wireName());
    Sql.setInstant(s, 4, e.lease().expiresAt());
    return 5;
  }

  /** Sorted, comma-separated (AgentConfig keeps them sorted). */
  private static String capabilities(String agentId, AgentConfig config) {
    String joined = String.join(",", config.capabilities());
    if (joined.length() <= 4000) {
      return joined;
    }
    log.warn(
        "capabilities of agent {} exceed 4000 characters; the read model keeps a prefix", agentId);
    return joined.substring(0, Math.max(0, joined.lastIndexOf(',', 4000)));
  }

  private PreparedStatement statement(String sql) throws SQLException {
    PreparedStatement statement = statements.get(sql);
    if (statement == null) {
      statement = connection.prepareStatement(sql);
      statements.put(sql, statement);
    }
    return statement;
  }

  @Override
  public void close() throws SQLException {
    SQLException failure = null;
    for (PreparedStatement statement : statements.values()) {
      try {
        statement.close();
      } catch (SQLException e) {
        failure = failure == null ? e : failure;
      }
    }
    statements.clear();
    if (failure != null) {
      throw failure;
    }
  }
}
