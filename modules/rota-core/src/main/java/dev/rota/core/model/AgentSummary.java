package dev.rota.core.model;

import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * An agent as its views show it: what {@link AgentState} holds, less the inbox and dead letters
 * themselves (only their count and age). It is what an agent answers to "show yourself", and it
 * crosses nodes: the whole state could hold megabytes of unread payloads, past Artery's frame size,
 * and such an answer would be dropped on the way. Its size is bounded by the config (the request
 * body limit), the lease (the notification ids of one activation) and the history (100 short
 * entries).
 *
 * @param unread unread notifications
 * @param oldestUnreadAt arrival of the oldest unread one, null when none
 * @param deadLetters dead letters kept
 * @param history newest first
 * @param nextFires per schedule name, its earliest fire not yet served (see {@link
 *     AgentState#nextFires()})
 * @param debounceUntil until when a burst of notifications keeps the agent waiting (see {@link
 *     NewInputState#debounceUntil}); null when it does not debounce or has nothing unread
 * @param awaitingReplies the groups of calls whose replies the agent holds until each has all of
 *     them (none in summaries sent before calls existed)
 * @param openCalls the calls the agent made and waits on, and those it serves; null when not known
 *     (a summary read from the read model, or sent before calls were shown)
 * @param owes the calls a turn deferred and the agent still owes an answer to (none in summaries
 *     sent before deferred answers existed)
 * @param waitingCalls how many calls the agent made wait for their reply
 */
public record AgentSummary(
    String agentId,
    boolean registered,
    AgentConfig config,
    int unread,
    Instant oldestUnreadAt,
    int deadLetters,
    Lease lease,
    Instant lastActivatedAt,
    long activationCount,
    Instant snoozedUntil,
    boolean paused,
    List<HistoryEntry> history,
    Map<String, Instant> nextFires,
    Instant debounceUntil,
    List<CallBook.GroupProgress> awaitingReplies,
    OpenCalls openCalls,
    List<CallInfo> owes,
    int waitingCalls) {

  public AgentSummary {
    history = List.copyOf(history);
    nextFires = nextFires == null ? Map.of() : Map.copyOf(nextFires);
    awaitingReplies = awaitingReplies == null ? List.of() : List.copyOf(awaitingReplies);
    owes = owes == null ? List.of() : List.copyOf(owes);
  }

  /** A summary of an agent that owes no deferred call. */
  public AgentSummary(
      String agentId,
      boolean registered,
      AgentConfig config,
      int unread,
      Instant oldestUnreadAt,
      int deadLetters,
      Lease lease,
      Instant lastActivatedAt,
      long activationCount,
      Instant snoozedUntil,
      boolean paused,
      List<HistoryEntry> history,
      Map<String, Instant> nextFires,
      Instant debounceUntil,
      List<CallBook.GroupProgress> awaitingReplies,
      OpenCalls openCalls) {
    this(
        agentId,
        registered,
        config,
        unread,
        oldestUnreadAt,
        deadLetters,
        lease,
        lastActivatedAt,
        activationCount,
        snoozedUntil,
        paused,
        history,
        nextFires,
        debounceUntil,
        awaitingReplies,
        openCalls,
        List.of(),
        0);
  }

  /** A summary that does not show the agent's open calls. */
  public AgentSummary(
      String agentId,
      boolean registered,
      AgentConfig config,
      int unread,
      Instant oldestUnreadAt,
      int deadLetters,
      Lease lease,
      Instant lastActivatedAt,
      long activationCount,
      Instant snoozedUntil,
      boolean paused,
      List<HistoryEntry> history,
      Map<String, Instant> nextFires,
      Instant debounceUntil,
      List<CallBook.GroupProgress> awaitingReplies) {
    this(
        agentId,
        registered,
        config,
        unread,
        oldestUnreadAt,
        deadLetters,
        lease,
        lastActivatedAt,
        activationCount,
        snoozedUntil,
        paused,
        history,
        nextFires,
        debounceUntil,
        awaitingReplies,
        null);
  }

  /** A summary of an agent that waits for no group of replies. */
  public AgentSummary(
      String agentId,
      boolean registered,
      AgentConfig config,
      int unread,
      Instant oldestUnreadAt,
      int deadLetters,
      Lease lease,
      Instant lastActivatedAt,
      long activationCount,
      Instant snoozedUntil,
      boolean paused,
      List<HistoryEntry> history,
      Map<String, Instant> nextFires,
      Instant debounceUntil) {
    this(
        agentId,
        registered,
        config,
        unread,
        oldestUnreadAt,
        deadLetters,
        lease,
        lastActivatedAt,
        activationCount,
        snoozedUntil,
        paused,
        history,
        nextFires,
        debounceUntil,
        List.of());
  }

  /** A summary of an agent that is not debouncing. */
  public AgentSummary(
      String agentId,
      boolean registered,
      AgentConfig config,
      int unread,
      Instant oldestUnreadAt,
      int deadLetters,
      Lease lease,
      Instant lastActivatedAt,
      long activationCount,
      Instant snoozedUntil,
      boolean paused,
      List<HistoryEntry> history,
      Map<String, Instant> nextFires) {
    this(
        agentId,
        registered,
        config,
        unread,
        oldestUnreadAt,
        deadLetters,
        lease,
        lastActivatedAt,
        activationCount,
        snoozedUntil,
        paused,
        history,
        nextFires,
        null,
        List.of());
  }

  /** Whether a debounce keeps the agent waiting at {@code now}. */
  public boolean isDebouncing(Instant now) {
    return debounceUntil != null && debounceUntil.isAfter(now);
  }

  /** A summary of an agent without schedules. */
  public AgentSummary(
      String agentId,
      boolean registered,
      AgentConfig config,
      int unread,
      Instant oldestUnreadAt,
      int deadLetters,
      Lease lease,
      Instant lastActivatedAt,
      long activationCount,
      Instant snoozedUntil,
      boolean paused,
      List<HistoryEntry> history) {
    this(
        agentId,
        registered,
        config,
        unread,
        oldestUnreadAt,
        deadLetters,
        lease,
        lastActivatedAt,
        activationCount,
        snoozedUntil,
        paused,
        history,
        Map.of());
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

  /** Whether a fire has come that no turn has served yet. */
  public boolean scheduleDue(Instant now) {
    Instant next = nextFireAt();
    return next != null && !next.isAfter(now);
  }

  public static AgentSummary of(AgentState state) {
    return new AgentSummary(
        state.agentId(),
        state.registered(),
        state.config(),
        state.inbox().size(),
        state.oldestUnreadAt().orElse(null),
        state.deadLetters().size(),
        state.lease(),
        state.lastActivatedAt(),
        state.activationCount(),
        state.snoozedUntil(),
        state.paused(),
        state.history(),
        state.nextFires(),
        NewInputState.debounceUntil(state),
        state.calls().waitingGroups(),
        OpenCalls.of(state),
        state.calls().owed(),
        (int) state.calls().openCalls().stream().filter(c -> !c.held()).count());
  }

  /** The status word of the agent view: paused wins, then leased, then snoozed. */
  public String status(Instant now) {
    if (paused) {
      return "paused";
    }
    if (lease != null) {
      return "leased";
    }
    return snoozedUntil != null && snoozedUntil.isAfter(now) ? "snoozed" : "idle";
  }
}
