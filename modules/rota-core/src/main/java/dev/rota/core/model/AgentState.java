package dev.rota.core.model;

import dev.rota.core.scheduling.AgentSchedule;
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
    int scheduleAttempts) {

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
  }

  public static AgentState empty(String agentId) {
    return new Builder(agentId).build();
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
    Instant earliest = null;
    for (Instant at : nextFires.values()) {
      if (earliest == null || at.isBefore(earliest)) {
        earliest = at;
      }
    }
    return earliest;
  }

  /**
   * The fire a scheduled turn granted at {@code now} serves: of the schedule whose unserved fire is
   * earliest (then by name), the latest fire at or before {@code now}, which covers the missed ones
   * before it. Empty when no fire is due.
   */
  public Optional<ScheduleFire> dueFire(Instant now) {
    String name = null;
    Instant earliest = null;
    for (Map.Entry<String, Instant> e : nextFires.entrySet()) {
      Instant at = e.getValue();
      if (at.isAfter(now)) {
        continue;
      }
      int c = earliest == null ? -1 : at.compareTo(earliest);
      if (c < 0 || (c == 0 && e.getKey().compareTo(name) < 0)) {
        name = e.getKey();
        earliest = at;
      }
    }
    if (name == null) {
      return Optional.empty();
    }
    Instant latest = config.schedule(name).map(s -> s.latestFireAtOrBefore(now)).orElse(null);
    return Optional.of(
        new ScheduleFire(name, latest == null || latest.isBefore(earliest) ? earliest : latest));
  }

  public boolean inboxFull() {
    return inbox.size() >= config.maxInboxDepth();
  }

  public Optional<Instant> oldestUnreadAt() {
    return inbox.stream().map(Notification::receivedAt).min(Instant::compareTo);
  }

  /** The first notification under this key, if it is unread or arrived within the window. */
  public Optional<DedupeEntry> duplicateOf(String dedupeKey, Instant now, Duration window) {
    if (dedupeKey == null) {
      return Optional.empty();
    }
    DedupeEntry entry = dedupe.get(dedupeKey).orElse(null);
    if (entry == null) {
      return Optional.empty();
    }
    boolean unread =
        inbox.stream().anyMatch(n -> n.notificationId().equals(entry.notificationId()));
    boolean inWindow = entry.acceptedAt().plus(window).isAfter(now);
    return unread || inWindow ? Optional.of(entry) : Optional.empty();
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
    if (!registered) {
      return Eligibility.denied("not_registered");
    }
    if (paused) {
      return Eligibility.denied("paused");
    }
    if (lease != null) {
      return Eligibility.denied("leased");
    }
    if (isSnoozed(now)) {
      return Eligibility.denied("snoozed");
    }
    if (!offered.containsAll(config.capabilities())) {
      return Eligibility.denied("capabilities");
    }
    if (!inbox.isEmpty()) {
      return mode.takesInbox()
          ? Eligibility.granted(ActivationKind.INBOX)
          : Eligibility.denied("has_inbox");
    }
    if (!mode.takesStaleness()) {
      return Eligibility.denied("no_inbox");
    }
    // A due schedule is an override: it does not wait for the minimum interval.
    Instant fire = nextFireAt();
    if (fire != null && !fire.isAfter(now)) {
      return Eligibility.granted(ActivationKind.SCHEDULED);
    }
    if (lastActivatedAt != null
        && lastActivatedAt.plus(config.minActivationInterval()).isAfter(now)) {
      return Eligibility.denied("min_interval");
    }
    return Eligibility.granted(ActivationKind.EXPLORATION);
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

  private static String abbreviated(String text, int max) {
    return text.length() <= max ? text : text.substring(0, max - 1) + "…";
  }

  /**
   * The notifications an activation granted now carries: the oldest first, at most {@code maxCount}
   * of them and at most {@code maxBytes} together ({@link Notification#estimatedBytes()}), but
   * always the first one. The rest stay unread for the next turn.
   */
  public List<Notification> nextCarried(int maxCount, long maxBytes) {
    List<Notification> carried = new ArrayList<>(Math.min(maxCount, inbox.size()));
    long bytes = 0;
    for (Notification n : inbox) {
      long size = n.estimatedBytes();
      if (!carried.isEmpty() && (carried.size() >= maxCount || bytes + size > maxBytes)) {
        break;
      }
      carried.add(n);
      bytes += size;
    }
    return carried;
  }

  /** The attempt number of an activation carrying the current inbox: 1 for a first try. */
  public int nextAttempt() {
    return inbox.stream().mapToInt(Notification::attempts).max().orElse(0) + 1;
  }

  public List<Notification> carried(Lease l) {
    Set<String> ids = new HashSet<>(l.notificationIds());
    return inbox.stream().filter(n -> ids.contains(n.notificationId())).toList();
  }

  /** What the assignment rule needs, for the coordinator's index and the read model. */
  public AgentSchedule toSchedule() {
    return new AgentSchedule(
        agentId,
        Set.copyOf(config.capabilities()),
        config.priority(),
        inbox.size(),
        oldestUnreadAt().orElse(null),
        lastActivatedAt,
        config.minActivationInterval(),
        lease != null,
        paused,
        snoozedUntil,
        nextFireAt());
  }

  // ---- transitions ----

  public AgentState registered(AgentConfig newConfig, Instant at) {
    Builder fresh = new Builder(agentId);
    fresh.registered = true;
    fresh.config = newConfig;
    fresh.fencingCounter = fencingCounter;
    fresh.history = history;
    fresh.nextFires = nextFires(newConfig, null, Map.of(), at);
    return fresh.build().recorded("agent.registered", at, Map.of());
  }

  /**
   * The new configuration; a schedule that fires as before keeps its unserved fire, a new or
   * changed one fires first after {@code at}.
   */
  public AgentState configured(AgentConfig newConfig, Instant at) {
    Builder b = toBuilder();
    b.config = newConfig;
    b.nextFires = nextFires(newConfig, config, nextFires, at);
    if (!b.nextFires.equals(nextFires)) {
      b.scheduleAttempts = 0;
    }
    return b.build().recorded("agent.updated", at, Map.of());
  }

  private static Map<String, Instant> nextFires(
      AgentConfig newConfig, AgentConfig oldConfig, Map<String, Instant> oldFires, Instant at) {
    Map<String, Instant> fires = new LinkedHashMap<>();
    for (Schedule s : newConfig.schedules()) {
      Schedule before = oldConfig == null ? null : oldConfig.schedule(s.name()).orElse(null);
      Instant next =
          before != null && before.firesLike(s) && oldFires.containsKey(s.name())
              ? oldFires.get(s.name())
              : s.nextFireAfter(at);
      if (next != null) {
        fires.put(s.name(), next);
      }
    }
    return fires;
  }

  /**
   * The fire a scheduled lease served is done: its schedule next fires after it. Fires that came
   * while the lease ran are after it too, so they are due at once.
   */
  private static void served(Builder b, AgentConfig config, ScheduleFire fire) {
    Map<String, Instant> fires = new LinkedHashMap<>(b.nextFires);
    Schedule schedule = config.schedule(fire.name()).orElse(null);
    Instant current = fires.get(fire.name());
    if (schedule != null && current != null) {
      Instant next = schedule.nextFireAfter(fire.firedAt());
      if (next == null) {
        fires.remove(fire.name());
      } else if (next.isAfter(current)) {
        fires.put(fire.name(), next);
      }
    }
    b.nextFires = fires;
    b.scheduleAttempts = 0;
  }

  /** Back to unregistered; the fencing counter survives so old lease ids stay refused. */
  public AgentState deregistered(Instant at) {
    Builder fresh = new Builder(agentId);
    fresh.fencingCounter = fencingCounter;
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
            entry ->
                entry.acceptedAt().plus(dedupeWindow).isAfter(n.receivedAt())
                    || inbox.stream()
                        .anyMatch(x -> x.notificationId().equals(entry.notificationId())));
    List<Notification> newInbox = new ArrayList<>(inbox);
    newInbox.add(n);
    Builder b = toBuilder();
    b.inbox = newInbox;
    b.dedupe = newDedupe;
    return b.build()
        .recorded(
            "notification.accepted",
            n.receivedAt(),
            Map.of("notificationId", n.notificationId(), "notificationType", n.type()));
  }

  public AgentState leaseGranted(Lease l) {
    Builder b = toBuilder();
    b.lease = l;
    b.fencingCounter = Math.max(fencingCounter, l.fencingToken());
    Map<String, String> details = new LinkedHashMap<>();
    details.put("leaseId", l.leaseId());
    details.put("runnerId", l.runnerId());
    details.put("kind", l.kind().wireName());
    details.put("notifications", String.valueOf(l.notificationIds().size()));
    if (l.schedule() != null) {
      details.put("schedule", l.schedule().name());
      details.put("firedAt", l.schedule().firedAt().toString());
    }
    return b.build().recorded("lease.granted", l.grantedAt(), details);
  }

  public AgentState leaseExtended(Instant expiresAt) {
    Builder b = toBuilder();
    b.lease = lease.extendedTo(expiresAt);
    return b.build();
  }

  /** The carried notifications are read; the agent was activated at {@code at}. */
  public AgentState completed(Instant at) {
    Set<String> carried = new HashSet<>(lease.notificationIds());
    Builder b = toBuilder();
    b.inbox = inbox.stream().filter(n -> !carried.contains(n.notificationId())).toList();
    b.lease = null;
    b.lastActivatedAt = at;
    b.activationCount = activationCount + 1;
    Map<String, String> details = new LinkedHashMap<>();
    details.put("leaseId", lease.leaseId());
    details.put("notifications", String.valueOf(carried.size()));
    if (lease.schedule() != null) {
      served(b, config, lease.schedule());
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
    Set<String> carried = new HashSet<>(lease.notificationIds());
    List<Notification> newInbox = new ArrayList<>();
    List<DeadLetter> newDead = new ArrayList<>(deadLetters);
    for (Notification n : inbox) {
      if (!carried.contains(n.notificationId()) || action == FailureAction.SNOOZE) {
        newInbox.add(n);
      } else if (action == FailureAction.RETRY) {
        Notification tried = n.withAttempts(n.attempts() + 1);
        if (tried.attempts() >= config.maxAttempts()) {
          newDead.add(deadLetterOf(tried, "attempts exhausted: " + error, at));
        } else {
          newInbox.add(tried);
        }
      } else {
        newDead.add(deadLetterOf(n, action.wireName() + ": " + error, at));
      }
    }
    Map<String, String> details = new LinkedHashMap<>();
    details.put("leaseId", lease.leaseId());
    details.put("action", action.wireName());
    // History is for reading at a glance, and it travels in every view of the agent.
    details.put("error", error == null ? "" : abbreviated(error, HISTORY_ERROR_LENGTH));
    Builder b = toBuilder();
    b.inbox = newInbox;
    b.deadLetters = newDead;
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
  private void scheduleFailed(Builder b, FailureAction action, Map<String, String> details) {
    details.put("schedule", lease.schedule().name());
    if (action == FailureAction.SNOOZE) {
      return;
    }
    if (action == FailureAction.RETRY && scheduleAttempts + 1 < config.maxAttempts()) {
      b.scheduleAttempts = scheduleAttempts + 1;
      return;
    }
    served(b, config, lease.schedule());
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
    Builder b = toBuilder();
    b.deadLetters = deadLetters.stream().filter(d -> !dropped.contains(d.id())).toList();
    return b.build();
  }

  /** Sum of {@link Notification#estimatedBytes()} over the inbox. */
  public long inboxBytes() {
    long bytes = 0;
    for (Notification n : inbox) {
      bytes += n.estimatedBytes();
    }
    return bytes;
  }

  public AgentState pausedAt(Instant at, boolean nowPaused) {
    Builder b = toBuilder();
    b.paused = nowPaused;
    return b.build().recorded(nowPaused ? "agent.paused" : "agent.resumed", at, Map.of());
  }

  /** The dead letter goes back into the inbox with fresh attempts. */
  public AgentState redriven(String deadLetterId, Instant at) {
    DeadLetter dead = deadLetter(deadLetterId).orElseThrow();
    List<Notification> newInbox = new ArrayList<>(inbox);
    newInbox.add(dead.notification().redriven(at));
    Builder b = toBuilder();
    b.inbox = newInbox;
    b.deadLetters = deadLetters.stream().filter(d -> !d.id().equals(deadLetterId)).toList();
    return b.build()
        .recorded(
            "dead_letter.redriven",
            at,
            Map.of(
                "deadLetterId",
                deadLetterId,
                "notificationId",
                dead.notification().notificationId()));
  }

  /** The dead letter is gone for good; the history keeps which notification it held. */
  public AgentState discarded(String deadLetterId, Instant at) {
    DeadLetter dead = deadLetter(deadLetterId).orElseThrow();
    Builder b = toBuilder();
    b.deadLetters = deadLetters.stream().filter(d -> !d.id().equals(deadLetterId)).toList();
    return b.build()
        .recorded(
            "dead_letter.discarded",
            at,
            Map.of(
                "deadLetterId",
                deadLetterId,
                "notificationId",
                dead.notification().notificationId()));
  }

  private DeadLetter deadLetterOf(Notification n, String reason, Instant at) {
    return new DeadLetter(Ids.deadLetterId(agentId, n.notificationId()), n, reason, at);
  }

  private AgentState recorded(String type, Instant at, Map<String, String> details) {
    List<HistoryEntry> newHistory = new ArrayList<>(HISTORY_LIMIT);
    newHistory.add(new HistoryEntry(type, at, details));
    for (int i = 0; i < history.size() && newHistory.size() < HISTORY_LIMIT; i++) {
      newHistory.add(history.get(i));
    }
    Builder b = toBuilder();
    b.history = newHistory;
    return b.build();
  }

  private Builder toBuilder() {
    Builder b = new Builder(agentId);
    b.registered = registered;
    b.config = config;
    b.inbox = inbox;
    b.deadLetters = deadLetters;
    b.lease = lease;
    b.lastActivatedAt = lastActivatedAt;
    b.activationCount = activationCount;
    b.snoozedUntil = snoozedUntil;
    b.paused = paused;
    b.fencingCounter = fencingCounter;
    b.dedupe = dedupe;
    b.history = history;
    b.nextFires = nextFires;
    b.scheduleAttempts = scheduleAttempts;
    return b;
  }

  /** One transition's changes; starts as an unregistered agent with defaults. */
  private static final class Builder {
    private final String agentId;
    private boolean registered;
    private AgentConfig config;
    private List<Notification> inbox = List.of();
    private List<DeadLetter> deadLetters = List.of();
    private Lease lease;
    private Instant lastActivatedAt;
    private long activationCount;
    private Instant snoozedUntil;
    private boolean paused;
    private long fencingCounter;
    private DedupeKeys dedupe = DedupeKeys.empty();
    private List<HistoryEntry> history = List.of();
    private Map<String, Instant> nextFires = Map.of();
    private int scheduleAttempts;

    private Builder(String agentId) {
      this.agentId = agentId;
      this.config = AgentConfig.defaults(agentId);
    }

    private AgentState build() {
      return new AgentState(
          agentId,
          registered,
          config,
          inbox,
          deadLetters,
          lease,
          lastActivatedAt,
          activationCount,
          snoozedUntil,
          paused,
          fencingCounter,
          dedupe,
          history,
          nextFires,
          scheduleAttempts);
    }
  }
}
