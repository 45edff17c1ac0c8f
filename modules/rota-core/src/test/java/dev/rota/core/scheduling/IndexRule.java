package dev.rota.core.scheduling;

import dev.rota.core.model.RunnerMode;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.ToLongFunction;
import java.util.function.UnaryOperator;

/**
 * The production rule over one index: the index's heads published to a {@link HeadsBoard}, as a
 * coordinator publishes them to a dispatcher, and the board's decision read back as a pick. The
 * board sees every row it is shown, so the first row of each view decides and one row per view is
 * enough. Like the index, it answers as of the latest {@code now} it has seen.
 */
final class IndexRule {

  /** One instance, so that the index reuses the heads of groups that did not change. */
  private static final ToLongFunction<String> NO_VERSION = id -> 0L;

  private final SchedulingIndex index;
  private final HeadsBoard board;
  private Instant clock = Instant.MIN;

  IndexRule(SchedulingIndex index) {
    this.index = index;
    this.board = new HeadsBoard(index.inboxMaxWait());
  }

  /** The agent a runner in {@code mode} offering {@code offered} gets at {@code now}. */
  Optional<HeadsBoard.Pick> next(RunnerMode mode, Set<String> offered, Instant now) {
    return decide(mode, offered, now, UnaryOperator.identity());
  }

  /** The inbox rule alone. */
  Optional<HeadsBoard.Pick> nextInbox(Set<String> offered, Instant now) {
    return decide(RunnerMode.NOTIFICATION, offered, now, UnaryOperator.identity());
  }

  /** The due schedules alone. */
  Optional<HeadsBoard.Pick> nextScheduled(Set<String> offered, Instant now) {
    return decide(
        RunnerMode.EXPLORATION,
        offered,
        now,
        g ->
            new HeadsBoard.GroupHeads(
                g.capabilities(),
                List.of(),
                List.of(),
                true,
                List.of(),
                true,
                g.scheduled(),
                g.scheduledComplete()));
  }

  /** The staleness rule alone, due schedules set aside. */
  Optional<HeadsBoard.Pick> nextStale(Set<String> offered, Instant now) {
    return decide(
        RunnerMode.EXPLORATION,
        offered,
        now,
        g ->
            new HeadsBoard.GroupHeads(
                g.capabilities(), List.of(), List.of(), true, g.stale(), g.staleComplete()));
  }

  /** Agents due for a scheduled turn that a runner offering every capability could take now. */
  int eligibleScheduled(Instant now) {
    return index.heads(Integer.MAX_VALUE, advance(now), NO_VERSION).stream()
        .mapToInt(g -> g.scheduled().size())
        .sum();
  }

  /**
   * Takes the agent out of the rule until a later upsert clears its lease, as the coordinator hears
   * of a claim. Unknown and already leased agents are left as they are.
   */
  void markLeased(String agentId) {
    index
        .get(agentId)
        .filter(row -> !row.leased())
        .ifPresent(row -> index.upsert(row.withLeased(true)));
  }

  private Optional<HeadsBoard.Pick> decide(
      RunnerMode mode,
      Set<String> offered,
      Instant now,
      UnaryOperator<HeadsBoard.GroupHeads> view) {
    Instant at = advance(now);
    board.put(0, index.heads(1, at, NO_VERSION).stream().map(view).toList());
    HeadsBoard.Decision decision = board.decide(mode, offered, at, head -> true);
    if (decision instanceof HeadsBoard.Await) {
      throw new AssertionError("a board shown every row awaited a partition: " + decision);
    }
    return decision instanceof HeadsBoard.Take take ? Optional.of(take.pick()) : Optional.empty();
  }

  private Instant advance(Instant now) {
    if (now.isAfter(clock)) {
      clock = now;
    }
    return clock;
  }
}
