package dev.rota.core.model;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The whole state of one agent, immutable. Every transition is a pure method that returns a new
 * state, so the entity's event handler only calls methods here and the rules (coalescing, attempt
 * counting, dead-lettering) are testable without actors.
 *
 * @param inbox unread notifications in arrival order
 * @param dedupe dedupe key → first notification id and when it arrived, oldest first, capped
 * @param history newest first, at most {@link #HISTORY_LIMIT}
 * @param fencingCounter the token of the last lease granted; every grant takes the next one
 * @param nextFires per schedule name, its earliest fire not yet served (due once past; absent when
 *     the cron never fires again)
 * @param scheduleAttempts failed tries of the due fire being retried
 * @param calls the sends and replies this agent owes others, and the calls it waits on ({@link
 *     CallState})
 */
public record AgentState(
    String agentId,
    boolean registered,
    AgentConfig config,
    List<Notification> inbox,
    List<DeadLetter> deadLetters,
    Lease lease,
    Instant lastActivatedAt,
    long activationCount,
    Instant snoozedUntil,
    boolean paused,
    long fencingCounter,
    DedupeKeys dedupe,
    List<HistoryEntry> history,
    Map<String, Instant> nextFires,
    int scheduleAttempts,
    CallBook calls) {

  public static final int HISTORY_LIMIT = 100;

  /** The longest error text a history entry keeps. */
  public static final int HISTORY_ERROR_LENGTH = 500;

  /** The first notification accepted under a dedupe key. */
  public record DedupeEntry(String notificationId, Instant acceptedAt) {}

  public AgentState {
    inbox = List.copyOf(inbox);
    deadLetters = List.copyOf(deadLetters);
    dedupe = dedupe == null ? DedupeKeys.empty() : dedupe;
    history = List.copyOf(history);
    // Snapshots taken before schedules existed have none.
    nextFires = nextFires == null ? Map.of() : Map.copyOf(nextFires);
    calls = calls == null ? CallBook.empty() : calls;
  }

  public static AgentState empty(String agentId) {
    return new AgentStateBuilder(agentId).build();
  }

  // ---- queries ----

  public boolean hasLease() {
    return lease != null;
  }

  public boolean isSnoozed(Instant now) {
    return snoozedUntil != null && snoozedUntil.isAfter(now);
  }

  /** The earliest fire not yet served over all schedules, null when none is coming. */
  public Instant nextFireAt() {
    return ScheduleFires.earliest(nextFires);
  }

  /**
   * The fire a scheduled turn granted at {@code now} serves: of the schedule whose unserved fire is
   * earliest (then by name), the latest fire at or before {@code now}, which covers the missed ones
   * before it. Empty when no fire is due.
   */
  public Optional<ScheduleFire> dueFire(Instant now) {
    return ScheduleFires.due(nextFires, config, now);
  }

  public boolean inboxFull() {
    return inbox.size() >= config.maxInboxDepth();
  }

  public Optional<Instant> oldestUnreadAt() {
    return inbox.stream().map(Notification::receivedAt).min(Instant::compareTo);
  }

  /** The first notification under this key, if it is unread or arrived within the window. */
  public Optional<DedupeEntry> duplicateOf(String dedupeKey, Instant now, Duration window) {
    DedupeEntry entry = dedupeKey == null ? null : dedupe.get(dedupeKey).orElse(null);
    boolean holds = entry != null && InboxRules.keyHolds(entry, inbox, now, window);
    return holds ? Optional.of(entry) : Optional.empty();
  }

  public Optional<DeadLetter> deadLetter(String deadLetterId) {
    return deadLetters.stream().filter(d -> d.id().equals(deadLetterId)).findFirst();
  }

  /** The status word of the agent view: paused wins, then leased, then snoozed. */
  public String status(Instant now) {
    if (paused) {
      return "paused";
    }
    if (lease != null) {
      return "leased";
    }
    return isSnoozed(now) ? "snoozed" : "idle";
  }

  /**
   * Which kind of activation this agent can give a runner with this mode and these capabilities
   * now, or why not. The coordinator's index picks candidates; this is the authoritative check.
   */
  public Eligibility eligibility(RunnerMode mode, Set<String> offered, Instant now) {
    return EligibilityRule.of(this, mode, offered, now);
  }

  /** Result of {@link #eligibility}: a kind when granted, a reason when denied. */
  public record Eligibility(ActivationKind kind, String deniedReason) {
    static Eligibility granted(ActivationKind kind) {
      return new Eligibility(kind, null);
    }

    static Eligibility denied(String reason) {
      return new Eligibility(null, reason);
    }

    public boolean granted() {
      return kind != null;
    }
  }

  /**
   * The notifications an activation granted now carries: the oldest first, at most {@code maxCount}
   * of them and at most {@code maxBytes} together ({@link Notification#estimatedBytes()}), but
   * always the first one. The rest stay unread for the next turn.
   */
  public List<Notification> nextCarried(int maxCount, long maxBytes) {
    return InboxRules.nextCarried(inbox, maxCount, maxBytes);
  }

  /** The attempt number of an activation carrying the current inbox: 1 for a first try. */
  public int nextAttempt() {
    return inbox.stream().mapToInt(Notification::attempts).max().orElse(0) + 1;
  }

  public List<Notification> carried(Lease l) {
    return InboxRules.carried(inbox, l);
  }

  // ---- transitions ----

  public AgentState registered(AgentConfig newConfig, Instant at) {
    AgentStateBuilder fresh = new AgentStateBuilder(agentId);
    fresh.registered = true;
    fresh.config = newConfig;
    fresh.fencingCounter = fencingCounter;
    fresh.history = history;
    fresh.calls = calls;
    fresh.nextFires = ScheduleFires.configured(newConfig, null, Map.of(), at);
    return fresh.build().recorded("agent.registered", at, Map.of());
  }

  /**
   * The new configuration; a schedule that fires as before keeps its unserved fire, a new or
   * changed one fires first after {@code at}.
   */
  public AgentState configured(AgentConfig newConfig, Instant at) {
    AgentStateBuilder b = toBuilder();
    b.config = newConfig;
    b.nextFires = ScheduleFires.configured(newConfig, config, nextFires, at);
    if (!b.nextFires.equals(nextFires)) {
      b.scheduleAttempts = 0;
    }
    return b.build().recorded("agent.updated", at, Map.of());
  }

  /** Back to unregistered; the fencing counter survives so old lease ids stay refused. */
  public AgentState deregistered(Instant at) {
    AgentStateBuilder fresh = new AgentStateBuilder(agentId);
    fresh.fencingCounter = fencingCounter;
    // What the agent owes others is still owed: its outbox is delivered after it is gone. The calls
    // it deferred are answered failed by the same event's replies, so they are owed no longer.
    fresh.calls = calls.owing(List.of());
    return fresh.build();
  }

  public AgentState notified(Notification n, Duration dedupeWindow) {
    return notified(n, dedupeWindow, DedupeKeys.DEFAULT_MAX_KEYS);
  }

  /** {@code n} joins the inbox; its dedupe key, if any, joins at most {@code maxDedupeKeys}. */
  public AgentState notified(Notification n, Duration dedupeWindow, int maxDedupeKeys) {
    // Forget keys whose window has passed and whose notification is read.
    DedupeKeys newDedupe =
        dedupe.added(
            n.dedupeKey(),
            new DedupeEntry(n.notificationId(), n.receivedAt()),
            maxDedupeKeys,
            entry -> InboxRules.keyHolds(entry, inbox, n.receivedAt(), dedupeWindow));
    List<Notification> newInbox = new ArrayList<>(inbox);
    newInbox.add(n);
    AgentStateBuilder b = toBuilder();
    b.inbox = newInbox;
    b.dedupe = newDedupe;
    Map<String, String> details = new LinkedHashMap<>();
    details.put("notificationId", n.notificationId());
    details.put("notificationType", n.type());
    if (n.call() != null) {
      details.put("callId", n.call().callId());
    }
    return b.build().recorded("notification.accepted", n.receivedAt(), details);
  }

  public AgentState leaseGranted(Lease l) {
    AgentStateBuilder b = toBuilder();
    b.lease = l;
    b.fencingCounter = Math.max(fencingCounter, l.fencingToken());
    return b.build().recorded("lease.granted", l.grantedAt(), AgentHistory.grantDetails(l));
  }

  public AgentState leaseExtended(Instant expiresAt) {
    AgentStateBuilder b = toBuilder();
    b.lease = lease.extendedTo(expiresAt);
    return b.build();
  }

  /** The carried notifications are read; the agent was activated at {@code at}. */
  public AgentState completed(Instant at) {
    Set<String> carried = new HashSet<>(lease.notificationIds());
    AgentStateBuilder b = toBuilder();
    b.inbox = inbox.stream().filter(n -> !carried.contains(n.notificationId())).toList();
    b.lease = null;
    b.lastActivatedAt = at;
    b.activationCount = activationCount + 1;
    Map<String, String> details = new LinkedHashMap<>();
    details.put("leaseId", lease.leaseId());
    details.put("notifications", String.valueOf(carried.size()));
    if (lease.schedule() != null) {
      served(b, lease.schedule());
      details.put("schedule", lease.schedule().name());
    }
    return b.build().recorded("activation.completed", at, details);
  }

  /**
   * The activation failed. Retry consumes an attempt of each carried notification and dead-letters
   * those out of attempts; cancel and discard dead-letter them all; snooze consumes nothing.
   */
  public AgentState failed(
      FailureAction action, String error, Instant at, Instant snoozeUntil, String historyType) {
    InboxRules.AfterFailure after =
        InboxRules.failed(
            inbox,
            deadLetters,
            lease,
            action,
            error,
            config.maxAttempts(),
            (n, reason) -> deadLetterOf(n, reason, at));
    Map<String, String> details = new LinkedHashMap<>();
    details.put("leaseId", lease.leaseId());
    details.put("runnerId", lease.runnerId());
    details.put("action", action.wireName());
    // History is for reading at a glance, and it travels in every view of the agent.
    details.put(
        "error", error == null ? "" : AgentHistory.abbreviated(error, HISTORY_ERROR_LENGTH));
    AgentStateBuilder b = toBuilder();
    b.inbox = after.inbox();
    b.deadLetters = after.deadLetters();
    b.lease = null;
    if (action == FailureAction.SNOOZE) {
      b.snoozedUntil = snoozeUntil;
    }
    if (lease.schedule() != null) {
      scheduleFailed(b, action, details);
    }
    return b.build().recorded(historyType, at, details);
  }

  /**
   * A scheduled turn failed. Like a notification, its fire is tried again on retry until {@code
   * maxAttempts} tries, and given up at once on cancel or discard; a snooze only defers it.
   */
  private void scheduleFailed(
      AgentStateBuilder b, FailureAction action, Map<String, String> details) {
    details.put("schedule", lease.schedule().name());
    if (action == FailureAction.SNOOZE) {
      return;
    }
    if (action == FailureAction.RETRY && scheduleAttempts + 1 < config.maxAttempts()) {
      b.scheduleAttempts = scheduleAttempts + 1;
      return;
    }
    served(b, lease.schedule());
    details.put("scheduleDropped", lease.schedule().firedAt().toString());
  }

  /** The attempt number of a scheduled turn granted now: 1 for a first try. */
  public int nextScheduleAttempt() {
    return scheduleAttempts + 1;
  }

  /** The same state without these dead letters (dropped to stay within a cap). */
  public AgentState withoutDeadLetters(java.util.Collection<String> deadLetterIds) {
    if (deadLetterIds.isEmpty()) {
      return this;
    }
    Set<String> dropped = new HashSet<>(deadLetterIds);
    AgentStateBuilder b = toBuilder();
    b.deadLetters = deadLetters.stream().filter(d -> !dropped.contains(d.id())).toList();
    return b.build();
  }

  /** Sum of {@link Notification#estimatedBytes()} over the inbox. */
  public long inboxBytes() {
    return InboxRules.bytes(inbox);
  }

  public AgentState pausedAt(Instant at, boolean nowPaused) {
    AgentStateBuilder b = toBuilder();
    b.paused = nowPaused;
    return b.build().recorded(nowPaused ? "agent.paused" : "agent.resumed", at, Map.of());
  }

  /** The dead letter goes back into the inbox with fresh attempts. */
  public AgentState redriven(String deadLetterId, Instant at) {
    DeadLetter dead = deadLetter(deadLetterId).orElseThrow();
    List<Notification> newInbox = new ArrayList<>(inbox);
    newInbox.add(dead.notification().redriven(at));
    AgentStateBuilder b = toBuilder();
    b.inbox = newInbox;
    b.deadLetters = deadLetters.stream().filter(d -> !d.id().equals(deadLetterId)).toList();
    return b.build().recorded("dead_letter.redriven", at, historyDetails(dead));
  }

  /** The dead letter is gone for good; the history keeps which notification it held. */
  public AgentState discarded(String deadLetterId, Instant at) {
    DeadLetter dead = deadLetter(deadLetterId).orElseThrow();
    AgentStateBuilder b = toBuilder();
    b.deadLetters = deadLetters.stream().filter(d -> !d.id().equals(deadLetterId)).toList();
    return b.build().recorded("dead_letter.discarded", at, historyDetails(dead));
  }

  /**
   * The runner a retry should avoid: the one whose activation of this agent last ended, if it ended
   * with a retry (failed with action retry, or its lease expired) at or after {@code since}. Read
   * from the history, which names the runner of each failed attempt.
   */
  public Optional<String> runnerToAvoid(Instant since) {
    return AgentHistory.runnerToAvoid(history, since);
  }

  private static Map<String, String> historyDetails(DeadLetter dead) {
    return Map.of(
        "deadLetterId", dead.id(), "notificationId", dead.notification().notificationId());
  }

  private DeadLetter deadLetterOf(Notification n, String reason, Instant at) {
    return new DeadLetter(Ids.deadLetterId(agentId, n.notificationId()), n, reason, at);
  }

  /** The fire {@code fire} is served, and the schedule's tries start over. */
  private void served(AgentStateBuilder b, ScheduleFire fire) {
    b.nextFires = ScheduleFires.served(b.nextFires, config, fire);
    b.scheduleAttempts = 0;
  }

  AgentState recorded(String type, Instant at, Map<String, String> details) {
    AgentStateBuilder b = toBuilder();
    b.history = AgentHistory.recorded(history, new HistoryEntry(type, at, details));
    return b.build();
  }

  private AgentStateBuilder toBuilder() {
    return new AgentStateBuilder(this);
  }
}
