package dev.rota.cluster.readmodel;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import dev.rota.cluster.agent.AgentEvents.ActivationCompleted;
import dev.rota.cluster.agent.AgentEvents.ActivationEnded;
import dev.rota.cluster.agent.AgentEvents.ActivationFailed;
import dev.rota.cluster.agent.AgentEvents.AgentDeregistered;
import dev.rota.cluster.agent.AgentEvents.AgentPaused;
import dev.rota.cluster.agent.AgentEvents.AgentRegistered;
import dev.rota.cluster.agent.AgentEvents.AgentResumed;
import dev.rota.cluster.agent.AgentEvents.AgentUpdated;
import dev.rota.cluster.agent.AgentEvents.DeadLetterDiscarded;
import dev.rota.cluster.agent.AgentEvents.DeadLetterRedriven;
import dev.rota.cluster.agent.AgentEvents.Event;
import dev.rota.cluster.agent.AgentEvents.LeaseExpired;
import dev.rota.cluster.agent.AgentEvents.LeaseGranted;
import dev.rota.cluster.agent.AgentEvents.LeaseRenewed;
import dev.rota.cluster.agent.AgentEvents.NotificationReceived;
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
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Applies a group of agent events to {@code agent_schedule}, {@code dead_letter} and {@code
 * rota_counter} on one connection, inside the projection's transaction. Plain SQL that H2 and
 * PostgreSQL both run: every change of an agent's row is an {@code UPDATE ... WHERE seq_nr < ?} (or
 * a {@code DELETE}), so an event that is not newer than the row changes nothing, and its dead
 * letters and counts are skipped with it. Only a registration inserts, after its update found no
 * row; on PostgreSQL it inserts first ({@code ON CONFLICT DO NOTHING}: a new agent, the usual case,
 * costs one statement instead of an update, an existence query and an insert) and updates only when
 * the agent has a row.
 *
 * <p>A group is written with as few statements and round trips as its meaning allows:
 *
 * <ul>
 *   <li>per agent, a run of notifications becomes one update ({@code unread = unread + k}); a run
 *       of notifications, grants and renewals that an activation's end follows is dropped into that
 *       end's update, which sets every column they touch (the lease columns, and unread and oldest
 *       unread as absolute values) — their counts still count, exactly when the end applies;
 *   <li>the remaining updates go in rounds (the first of every agent, then the second, ...), each
 *       round as one JDBC batch per statement, so an agent's updates keep their order.
 * </ul>
 *
 * <p>A folded update is guarded by the sequence number of the first event it folds, so it applies
 * exactly when that event alone would have: groups commit with their offset (exactly once), so a
 * row is never between the first and the last event of a group.
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

  /** How {@code agent_schedule.config} holds an agent's configuration. */
  static final ObjectMapper CONFIG_JSON =
      JsonMapper.builder().addModule(new JavaTimeModule()).build();

  /** One event of a group, as the projection delivers it. */
  record Item(String agentId, long seqNr, Event event) {}

  private static final String GUARD =
      ", seq_nr = ?, updated_at = ? where agent_id = ? and seq_nr < ?";
  private static final String REGISTERED =
      "partition_id = ?, name = ?, capabilities = ?, priority = ?,"
          + " min_activation_interval_seconds = ?, config = ?, unread = 0,"
          + " oldest_unread_at = null, last_activated_at = null, activation_count = 0,"
          + " lease_id = null, lease_runner_id = null, lease_kind = null,"
          + " lease_expires_at = null, lease_granted_at = null, paused = false,"
          + " snoozed_until = null, dead_letters = 0, registered_at = ?, next_fire_at = ?";
  private static final String INSERT_AGENT =
      "insert into agent_schedule (agent_id, partition_id, name, capabilities, priority,"
          + " min_activation_interval_seconds, config, registered_at, next_fire_at, seq_nr,"
          + " updated_at) values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";
  private static final String INSERT_NEW_AGENT =
      INSERT_AGENT + " on conflict (agent_id) do nothing";
  private static final String CONFIGURED =
      "name = ?, capabilities = ?, priority = ?, min_activation_interval_seconds = ?,"
          + " config = ?, next_fire_at = ?";
  private static final String NOTIFIED = "unread = unread + ?, oldest_unread_at = " + earliest();
  private static final String LEASED =
      "lease_id = ?, lease_runner_id = ?, lease_kind = ?, lease_expires_at = ?,"
          + " lease_granted_at = ?";
  private static final String RENEWED = "lease_expires_at = ?";
  private static final String ENDED =
      "lease_id = null, lease_runner_id = null, lease_kind = null, lease_expires_at = null,"
          + " lease_granted_at = null, unread = ?, oldest_unread_at = ?, next_fire_at = ?,"
          + " dead_letters = dead_letters + ?";
  private static final String COMPLETED =
      ENDED + ", last_activated_at = ?, activation_count = activation_count + 1";
  private static final String SNOOZED = ENDED + ", snoozed_until = ?";
  private static final String PAUSED = "paused = ?";
  private static final String ONE_DEAD_LETTER_LESS =
      "dead_letters = case when dead_letters > 0 then dead_letters - 1 else 0 end";
  private static final String REDRIVEN =
      ONE_DEAD_LETTER_LESS + ", unread = unread + 1, oldest_unread_at = " + earliest();
  private static final String DEREGISTER =
      "delete from agent_schedule where agent_id = ? and seq_nr < ?";
  private static final String INSERT_DEAD_LETTER =
      "insert into dead_letter (id, agent_id, notification_id, type, payload, attempts, reason,"
          + " dead_at) values (?, ?, ?, ?, ?, ?, ?, ?)";

  /** Agent ids per existence query of registrations that found no row. */
  private static final int EXISTS_CHUNK = 100;

  private final Connection connection;
  private final int partitions;
  private final Map<String, PreparedStatement> statements = new HashMap<>();
  private final int counterSlot;
  private final java.util.TreeMap<Integer, EnumMap<Counter, Long>> counts =
      new java.util.TreeMap<>();
  private final List<Registration> unmatchedRegistrations = new ArrayList<>();

  /** Whether registrations insert first (PostgreSQL); see the class comment. */
  private final boolean insertFirst;

  private final List<Registration> conflictingRegistrations = new ArrayList<>();

  /**
   * @param partitions the partition count, for each agent row's {@code partition_id} and the
   *     counter rows (one per partition) its counts go to
   */
  AgentScheduleWriter(Connection connection, int partitions) throws SQLException {
    this(connection, partitions, -1);
  }

  /**
   * @param counterSlot the one counter row per counter that this writer adds to, or -1 for the rows
   *     of the agents' partitions; readers sum the rows of a counter, whatever their key
   */
  AgentScheduleWriter(Connection connection, int partitions, int counterSlot) throws SQLException {
    this.connection = connection;
    this.partitions = partitions;
    this.counterSlot = counterSlot;
    this.insertFirst = "PostgreSQL".equals(connection.getMetaData().getDatabaseProductName());
  }

  /**
   * {@code oldest_unread_at} or the bound instant, whichever is earlier (LEAST is not portable).
   */
  private static String earliest() {
    return "case when oldest_unread_at is not null and oldest_unread_at <= ?"
        + " then oldest_unread_at else ? end";
  }

  // ---- a group ----

  /**
   * Applies a group of events, in order per agent; counters are added by {@link #flushCounters}.
   */
  void applyGroup(List<Item> items) throws SQLException {
    Map<String, List<Item>> byAgent = new LinkedHashMap<>();
    for (Item item : items) {
      byAgent.computeIfAbsent(item.agentId(), id -> new ArrayList<>()).add(item);
    }
    List<List<Write>> plans = new ArrayList<>(byAgent.size());
    for (List<Item> agentItems : byAgent.values()) {
      plans.add(plan(agentItems));
    }
    for (int round = 0; ; round++) {
      Map<String, List<Write>> bySql = new LinkedHashMap<>();
      for (List<Write> plan : plans) {
        if (round < plan.size()) {
          Write write = plan.get(round);
          bySql.computeIfAbsent(write.sql(), sql -> new ArrayList<>()).add(write);
        }
      }
      if (bySql.isEmpty()) {
        return;
      }
      for (Map.Entry<String, List<Write>> entry : bySql.entrySet()) {
        execute(entry.getKey(), entry.getValue());
      }
      updateConflictingRegistrations();
      insertUnmatchedRegistrations();
    }
  }

  /** The writes of one agent's events in this group, folded where the result is the same. */
  private List<Write> plan(List<Item> items) {
    List<Write> writes = new ArrayList<>();
    int i = 0;
    while (i < items.size()) {
      int end = i;
      while (end < items.size() && foldableIntoEnd(items.get(end).event())) {
        end++;
      }
      if (end > i && end < items.size() && items.get(end).event() instanceof ActivationEnded) {
        writes.add(ended(items.get(end), items.subList(i, end)));
        i = end + 1;
        continue;
      }
      int run = i;
      while (run < items.size() && items.get(run).event() instanceof NotificationReceived) {
        run++;
      }
      if (run > i) {
        writes.add(notified(items.subList(i, run)));
        i = run;
        continue;
      }
      writes.add(single(items.get(i)));
      i++;
    }
    return writes;
  }

  /** Events whose every column an activation's end sets again (their counts aside). */
  private static boolean foldableIntoEnd(Event event) {
    return event instanceof NotificationReceived
        || event instanceof LeaseGranted
        || event instanceof LeaseRenewed;
  }

  private void execute(String sql, List<Write> writes) throws SQLException {
    PreparedStatement s = statement(sql);
    if (writes.size() == 1) {
      Write write = writes.get(0);
      write.bind(s);
      settle(write, s.executeUpdate());
      return;
    }
    for (Write write : writes) {
      write.bind(s);
      s.addBatch();
    }
    int[] counts = s.executeBatch();
    for (int k = 0; k < writes.size(); k++) {
      settle(writes.get(k), counts[k]);
    }
  }

  private void settle(Write write, int rows) throws SQLException {
    // SUCCESS_NO_INFO: the driver ran it but cannot say; neither H2 nor PostgreSQL answer so.
    if (rows > 0 || rows == java.sql.Statement.SUCCESS_NO_INFO) {
      write.applied();
    } else {
      write.notApplied();
    }
  }

  // ---- the writes ----

  /** One statement for one agent, and what follows when it did or did not change a row. */
  private interface Write {
    String sql();

    void bind(PreparedStatement statement) throws SQLException;

    void applied() throws SQLException;

    void notApplied() throws SQLException;
  }

  @FunctionalInterface
  private interface Binder {
    /** Binds the assignment parameters from index 1; returns the next free index. */
    int bind(PreparedStatement statement) throws SQLException;
  }

  @FunctionalInterface
  private interface Effect {
    void run() throws SQLException;
  }

  /** A guarded update of one agent's row; its effects run only when it changed the row. */
  private class Update implements Write {
    final String agentId;
    final long seqNr;
    final long guardSeqNr;
    final Instant at;
    final String sql;
    final Binder binder;
    final List<Effect> effects = new ArrayList<>();
    final Object what;

    Update(
        String agentId,
        long seqNr,
        long guardSeqNr,
        Instant at,
        String assignments,
        Binder binder,
        Object what) {
      this.agentId = agentId;
      this.seqNr = seqNr;
      this.guardSeqNr = guardSeqNr;
      this.at = at;
      this.sql = "update agent_schedule set " + assignments + GUARD;
      this.binder = binder;
      this.what = what;
    }

    Update then(Effect effect) {
      effects.add(effect);
      return this;
    }

    Update counting(Counter counter, long n) {
      return then(
          () ->
              counted(
                  counterSlot >= 0 ? counterSlot : Partitions.of(agentId, partitions), counter, n));
    }

    @Override
    public String sql() {
      return sql;
    }

    @Override
    public void bind(PreparedStatement s) throws SQLException {
      int i = binder.bind(s);
      s.setLong(i++, seqNr);
      Sql.setInstant(s, i++, at);
      s.setString(i++, agentId);
      s.setLong(i, guardSeqNr);
    }

    @Override
    public void applied() throws SQLException {
      for (Effect effect : effects) {
        effect.run();
      }
    }

    @Override
    public void notApplied() throws SQLException {
      log.debug("ignored {} #{} of agent {}: not newer than its row", what, seqNr, agentId);
    }
  }

  /** A registration: resets the row, or inserts it when there is none. */
  private final class Registration extends Update {
    final AgentRegistered event;
    final int partitionId;

    Registration(String agentId, long seqNr, AgentRegistered event) {
      super(agentId, seqNr, seqNr, event.at(), REGISTERED, null, event);
      this.event = event;
      this.partitionId = Partitions.of(agentId, partitions);
      // A registration starts afresh (AgentState.registered): nothing of an older life remains.
      then(() -> deleteDeadLettersOf(agentId));
    }

    @Override
    public void bind(PreparedStatement s) throws SQLException {
      s.setInt(1, partitionId);
      int i = bindConfig(s, 2, agentId, event.config());
      Sql.setInstant(s, i++, event.at());
      Sql.setInstant(s, i++, event.nextFireAt());
      s.setLong(i++, seqNr);
      Sql.setInstant(s, i++, at);
      s.setString(i++, agentId);
      s.setLong(i, guardSeqNr);
    }

    @Override
    public void notApplied() {
      unmatchedRegistrations.add(this);
    }

    void bindInsert(PreparedStatement s) throws SQLException {
      s.setString(1, agentId);
      s.setInt(2, partitionId);
      int i = bindConfig(s, 3, agentId, event.config());
      Sql.setInstant(s, i++, event.at());
      Sql.setInstant(s, i++, event.nextFireAt());
      s.setLong(i++, seqNr);
      Sql.setInstant(s, i, event.at());
    }
  }

  /**
   * PostgreSQL: a registration inserts its row unless the agent has one (then {@link
   * #updateConflictingRegistrations} resets that row as the registration's update does elsewhere).
   */
  private final class InsertIfNew implements Write {
    final Registration registration;

    InsertIfNew(Registration registration) {
      this.registration = registration;
    }

    @Override
    public String sql() {
      return INSERT_NEW_AGENT;
    }

    @Override
    public void bind(PreparedStatement s) throws SQLException {
      registration.bindInsert(s);
    }

    @Override
    public void applied() {
      // A new row: no older life of the agent to clear, as when the update found no row.
    }

    @Override
    public void notApplied() {
      conflictingRegistrations.add(registration);
    }
  }

  /** Registrations whose insert found a row: their guarded updates, one batch. */
  private void updateConflictingRegistrations() throws SQLException {
    if (conflictingRegistrations.isEmpty()) {
      return;
    }
    List<Write> updates = new ArrayList<>(conflictingRegistrations);
    conflictingRegistrations.clear();
    execute(updates.get(0).sql(), updates);
  }

  /** Registrations whose update found no row: insert those that have none (one batch). */
  private void insertUnmatchedRegistrations() throws SQLException {
    if (unmatchedRegistrations.isEmpty()) {
      return;
    }
    Set<String> existing = new HashSet<>();
    for (int from = 0; from < unmatchedRegistrations.size(); from += EXISTS_CHUNK) {
      List<Registration> chunk =
          unmatchedRegistrations.subList(
              from, Math.min(unmatchedRegistrations.size(), from + EXISTS_CHUNK));
      StringBuilder sql =
          new StringBuilder("select agent_id from agent_schedule where agent_id in (");
      for (int k = 0; k < chunk.size(); k++) {
        sql.append(k == 0 ? "?" : ", ?");
      }
      try (PreparedStatement s = connection.prepareStatement(sql.append(')').toString())) {
        for (int k = 0; k < chunk.size(); k++) {
          s.setString(k + 1, chunk.get(k).agentId);
        }
        try (ResultSet rs = s.executeQuery()) {
          while (rs.next()) {
            existing.add(rs.getString(1));
          }
        }
      }
    }
    PreparedStatement insert = statement(INSERT_AGENT);
    int batched = 0;
    for (Registration registration : unmatchedRegistrations) {
      if (existing.contains(registration.agentId)) {
        log.debug(
            "ignored registration #{} of agent {}: not newer than its row",
            registration.seqNr,
            registration.agentId);
        continue;
      }
      registration.bindInsert(insert);
      insert.addBatch();
      batched++;
    }
    if (batched > 0) {
      insert.executeBatch();
    }
    unmatchedRegistrations.clear();
  }

  /** A deregistration deletes the row and its dead letters. */
  private final class Deregistration implements Write {
    final String agentId;
    final long seqNr;

    Deregistration(String agentId, long seqNr) {
      this.agentId = agentId;
      this.seqNr = seqNr;
    }

    @Override
    public String sql() {
      return DEREGISTER;
    }

    @Override
    public void bind(PreparedStatement s) throws SQLException {
      s.setString(1, agentId);
      s.setLong(2, seqNr);
    }

    @Override
    public void applied() throws SQLException {
      deleteDeadLettersOf(agentId);
    }

    @Override
    public void notApplied() {
      log.debug("ignored deregistration #{} of agent {}: no newer row", seqNr, agentId);
    }
  }

  /** A run of notifications as one update. */
  private Write notified(List<Item> run) {
    Item first = run.get(0);
    Item last = run.get(run.size() - 1);
    Instant earliest = first.event().at();
    for (Item item : run) {
      Instant at = ((NotificationReceived) item.event()).notification().receivedAt();
      if (at.isBefore(earliest)) {
        earliest = at;
      }
    }
    Instant oldest = earliest;
    int n = run.size();
    return new Update(
            first.agentId(),
            last.seqNr(),
            first.seqNr(),
            last.event().at(),
            NOTIFIED,
            s -> {
              s.setInt(1, n);
              return bindEarliest(s, 2, oldest);
            },
            n == 1 ? first.event() : n + " notifications")
        .counting(Counter.NOTIFICATIONS_ACCEPTED, n);
  }

  /** An activation's end, with the events before it whose columns it sets again. */
  private Write ended(Item end, List<Item> folded) {
    ActivationEnded e = (ActivationEnded) end.event();
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
    // COMPLETED and SNOOZED bind one instant after ENDED's parameters.
    Instant extraValue = extra;
    boolean hasExtra = !assignments.equals(ENDED);
    String agentId = end.agentId();
    long guard = folded.isEmpty() ? end.seqNr() : folded.get(0).seqNr();
    Update update =
        new Update(
            agentId,
            end.seqNr(),
            guard,
            e.at(),
            assignments,
            s -> {
              s.setInt(1, e.inboxAfter().unread());
              Sql.setInstant(s, 2, e.inboxAfter().oldestUnreadAt());
              Sql.setInstant(s, 3, e.inboxAfter().nextFireAt());
              s.setInt(4, e.deadLettered().size() - e.droppedDeadLetters().size());
              if (hasExtra) {
                Sql.setInstant(s, 5, extraValue);
                return 6;
              }
              return 5;
            },
            e);
    for (Item item : folded) {
      if (item.event() instanceof NotificationReceived) {
        update.counting(Counter.NOTIFICATIONS_ACCEPTED, 1);
      } else if (item.event() instanceof LeaseGranted g) {
        update.counting(grantCounter(g), 1);
      }
    }
    for (DeadLetter dead : e.deadLettered()) {
      update.then(() -> insertDeadLetter(agentId, dead));
    }
    for (String dropped : e.droppedDeadLetters()) {
      update.then(() -> deleteDeadLetter(dropped));
    }
    return update
        .counting(counter, 1)
        .counting(Counter.NOTIFICATIONS_DEAD_LETTERED, e.deadLettered().size());
  }

  /** One event on its own. */
  private Write single(Item item) {
    String agentId = item.agentId();
    long seqNr = item.seqNr();
    Event event = item.event();
    if (event instanceof AgentRegistered e) {
      Registration registration = new Registration(agentId, seqNr, e);
      return insertFirst ? new InsertIfNew(registration) : registration;
    }
    if (event instanceof AgentDeregistered) {
      return new Deregistration(agentId, seqNr);
    }
    if (event instanceof AgentUpdated e) {
      return update(
          item,
          CONFIGURED,
          s -> {
            int i = bindConfig(s, 1, agentId, e.config());
            Sql.setInstant(s, i, e.nextFireAt());
            return i + 1;
          });
    }
    if (event instanceof NotificationReceived) {
      return notified(List.of(item));
    }
    if (event instanceof LeaseGranted e) {
      return update(item, LEASED, s -> bindLease(s, e)).counting(grantCounter(e), 1);
    }
    if (event instanceof LeaseRenewed e) {
      return update(
          item,
          RENEWED,
          s -> {
            Sql.setInstant(s, 1, e.expiresAt());
            return 2;
          });
    }
    if (event instanceof ActivationEnded) {
      return ended(item, List.of());
    }
    if (event instanceof AgentPaused || event instanceof AgentResumed) {
      boolean paused = event instanceof AgentPaused;
      return update(
          item,
          PAUSED,
          s -> {
            s.setBoolean(1, paused);
            return 2;
          });
    }
    if (event instanceof DeadLetterRedriven e) {
      return update(item, REDRIVEN, s -> bindEarliest(s, 1, e.at()))
          .then(() -> deleteDeadLetter(e.deadLetterId()));
    }
    if (event instanceof DeadLetterDiscarded e) {
      return update(item, ONE_DEAD_LETTER_LESS, s -> 1)
          .then(() -> deleteDeadLetter(e.deadLetterId()));
    }
    // A new event type must be handled here; failing stops the projection rather than let the
    // read model drift silently.
    throw new IllegalArgumentException("unknown agent event " + event.getClass().getName());
  }

  private Update update(Item item, String assignments, Binder binder) {
    return new Update(
        item.agentId(),
        item.seqNr(),
        item.seqNr(),
        item.event().at(),
        assignments,
        binder,
        item.event());
  }

  private static Counter grantCounter(LeaseGranted e) {
    return switch (e.lease().kind()) {
      case EXPLORATION -> Counter.ACTIVATIONS_EXPLORATION;
      case SCHEDULED -> Counter.ACTIVATIONS_SCHEDULED;
      default -> Counter.ACTIVATIONS_INBOX;
    };
  }

  // ---- dead letters ----

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

  private void deleteDeadLetter(String deadLetterId) throws SQLException {
    PreparedStatement s = statement("delete from dead_letter where id = ?");
    s.setString(1, deadLetterId);
    s.executeUpdate();
  }

  private void deleteDeadLettersOf(String agentId) throws SQLException {
    PreparedStatement s = statement("delete from dead_letter where agent_id = ?");
    s.setString(1, agentId);
    s.executeUpdate();
  }

  // ---- counters ----

  /**
   * Adds this transaction's counts to the counter rows of the agents' partitions, in the order of
   * (partition, counter), so that two transactions adding to the same rows lock them in the same
   * order.
   */
  void flushCounters() throws SQLException {
    if (counts.isEmpty()) {
      return;
    }
    // One batch (one round trip) for every counter row the transaction adds to; the rows that
    // did not exist yet (a projection's first counts) are inserted after it.
    List<Object[]> rows = new ArrayList<>();
    PreparedStatement update =
        statement("update rota_counter set total = total + ? where name = ? and partition_id = ?");
    for (Map.Entry<Integer, EnumMap<Counter, Long>> byPartition : counts.entrySet()) {
      for (Map.Entry<Counter, Long> entry : byPartition.getValue().entrySet()) {
        update.setLong(1, entry.getValue());
        update.setString(2, entry.getKey().key());
        update.setInt(3, byPartition.getKey());
        update.addBatch();
        rows.add(new Object[] {entry.getKey().key(), byPartition.getKey(), entry.getValue()});
      }
    }
    int[] updated = update.executeBatch();
    for (int i = 0; i < rows.size(); i++) {
      if (updated[i] == 0) {
        PreparedStatement insert =
            statement("insert into rota_counter (name, partition_id, total) values (?, ?, ?)");
        insert.setString(1, (String) rows.get(i)[0]);
        insert.setInt(2, (Integer) rows.get(i)[1]);
        insert.setLong(3, (Long) rows.get(i)[2]);
        insert.executeUpdate();
      }
    }
    counts.clear();
  }

  /** Adds to a counter of this transaction. */
  private void counted(int partitionId, Counter counter, long n) {
    if (n > 0) {
      counts
          .computeIfAbsent(partitionId, p -> new EnumMap<>(Counter.class))
          .merge(counter, n, Long::sum);
    }
  }

  // ---- binding ----

  private static int bindConfig(PreparedStatement s, int from, String agentId, AgentConfig config)
      throws SQLException {
    int i = from;
    s.setString(i++, Sql.fit(config.name(), 256));
    s.setString(i++, capabilities(agentId, config));
    s.setInt(i++, config.priority());
    s.setLong(i++, config.minActivationIntervalSeconds());
    s.setString(i++, configJson(agentId, config));
    return i;
  }

  /** The whole configuration, for listings read from this table (null if it cannot be written). */
  static String configJson(String agentId, AgentConfig config) {
    try {
      return CONFIG_JSON.writeValueAsString(config);
    } catch (JsonProcessingException e) {
      log.warn("configuration of agent {} not kept in the read model: {}", agentId, e.getMessage());
      return null;
    }
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
    Sql.setInstant(s, 5, e.lease().grantedAt());
    return 6;
  }

  /** Sorted, comma-separated (AgentConfig keeps them sorted). */
  static String capabilities(String agentId, AgentConfig config) {
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
