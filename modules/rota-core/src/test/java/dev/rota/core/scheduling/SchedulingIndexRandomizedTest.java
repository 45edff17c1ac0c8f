package dev.rota.core.scheduling;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.rota.core.model.RunnerMode;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.function.Supplier;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Drives {@link SchedulingIndex} and {@link ReferenceScheduler} through the same random operations
 * and compares every answer after every step. Values come from coarse grids (whole minutes, few
 * priorities, few agents, three capabilities) so that ties, boundaries (a snooze ending exactly
 * now, a notification exactly {@code maxWait} old) and replacements happen often.
 */
class SchedulingIndexRandomizedTest {

  private static final Duration MAX_WAIT = Duration.ofMinutes(20);
  private static final List<String> CAPABILITIES = List.of("code", "web", "gpu");
  private static final List<Duration> INTERVALS =
      List.of(Duration.ZERO, Duration.ZERO, Duration.ofMinutes(10), Duration.ofHours(1));

  @ParameterizedTest(name = "seed {0}")
  @ValueSource(longs = {1L, 2L, 3L, 42L, 7_919L, 20_250_101L})
  void agreesWithTheReferenceOnAFewAgents(long seed) {
    new Run(seed, 40, 3_000).play();
  }

  @ParameterizedTest(name = "seed {0}")
  @ValueSource(longs = {11L})
  void agreesWithTheReferenceOnManyAgents(long seed) {
    new Run(seed, 300, 2_000).play();
  }

  /** An operation as the failure message shows it; formatted only on failure. */
  private record Operation(int step, String name, Object argument) {
    @Override
    public String toString() {
      return step + ": " + name + " " + argument;
    }
  }

  /** One random history, with the last operations kept for the failure message. */
  private static final class Run {
    private final long seed;
    private final Random random;
    private final int agents;
    private final int steps;
    private final SchedulingIndex index = new SchedulingIndex(MAX_WAIT);
    private final IndexRule rule = new IndexRule(index);
    private final ReferenceScheduler reference = new ReferenceScheduler(MAX_WAIT);
    private final Deque<Operation> history = new ArrayDeque<>();
    private Instant now = Agents.T0;
    private int step;

    Run(long seed, int agents, int steps) {
      this.seed = seed;
      this.random = new Random(seed);
      this.agents = agents;
      this.steps = steps;
    }

    void play() {
      for (step = 0; step < steps; step++) {
        int dice = random.nextInt(100);
        if (dice < 40) {
          upsert(randomRow(randomId()));
        } else if (dice < 48) {
          String id = randomId();
          log("remove", id);
          index.remove(id);
          reference.remove(id);
        } else if (dice < 56) {
          markLeased(randomId());
        } else if (dice < 68) {
          claim();
        } else if (dice < 76) {
          complete();
        } else {
          advanceTime();
        }
        compareEverything();
      }
    }

    private void upsert(AgentSchedule row) {
      log("upsert", row);
      index.upsert(row);
      reference.upsert(row);
    }

    private void markLeased(String id) {
      log("markLeased", id);
      rule.markLeased(id);
      reference.markLeased(id);
    }

    /** What a coordinator does: pick for a runner, then mark the pick leased. */
    private void claim() {
      RunnerMode mode = randomMode();
      Set<String> offered = randomCapabilities();
      Optional<HeadsBoard.Pick> pick = rule.next(mode, offered, now);
      check("claim " + mode + " " + offered, () -> reference.next(mode, offered, now), pick);
      pick.ifPresent(p -> markLeased(p.agent().agentId()));
    }

    /** What an entity reports on completion: inbox read (or new arrivals), ran now, lease gone. */
    private void complete() {
      List<String> leased =
          reference.ids().stream().filter(id -> reference.get(id).orElseThrow().leased()).toList();
      if (leased.isEmpty()) {
        return;
      }
      AgentSchedule was = reference.get(leased.get(random.nextInt(leased.size()))).orElseThrow();
      boolean arrivals = random.nextInt(4) == 0;
      upsert(
          new AgentSchedule(
              was.agentId(),
              was.capabilities(),
              was.priority(),
              arrivals ? 1 + random.nextInt(2) : 0,
              arrivals ? now : null,
              now,
              was.minActivationInterval(),
              false,
              was.paused(),
              null));
    }

    private void advanceTime() {
      int dice = random.nextInt(10);
      Optional<Instant> change = index.nextEligibilityChange(now);
      if (dice < 3 && change.isPresent()) {
        now = change.get(); // land exactly on a boundary
      } else if (dice < 4) {
        now = now.plusNanos(1);
      } else if (dice < 5) {
        return; // the same instant again
      } else {
        now = now.plus(Duration.ofMinutes(random.nextInt(15)));
      }
      log("now", now);
    }

    private void compareEverything() {
      check("size", reference::size, index.size());
      String id = randomId();
      check("get " + id, () -> reference.get(id), index.get(id));
      check("stats", () -> reference.stats(now), index.stats(now));
      check(
          "nextEligibilityChange",
          () -> reference.nextEligibilityChange(now),
          index.nextEligibilityChange(now));
      for (int i = 0; i < 3; i++) {
        RunnerMode mode = randomMode();
        Set<String> offered = randomCapabilities();
        String runner = mode + " " + offered;
        check(
            "next " + runner,
            () -> reference.next(mode, offered, now),
            rule.next(mode, offered, now));
        check(
            "nextInboxCandidate " + offered,
            () -> reference.nextInbox(offered, now),
            rule.nextInbox(offered, now));
        check(
            "nextStaleCandidate " + offered,
            () -> reference.nextStale(offered, now),
            rule.nextStale(offered, now));
      }
    }

    private <T> void check(String what, Supplier<T> expected, T actual) {
      T want = expected.get();
      if (!want.equals(actual)) {
        assertEquals(
            want,
            actual,
            () ->
                "seed "
                    + seed
                    + ", step "
                    + step
                    + ", at "
                    + now
                    + ": "
                    + what
                    + "\nlast operations:\n  "
                    + String.join("\n  ", history.stream().map(Operation::toString).toList()));
      }
    }

    private void log(String operation, Object argument) {
      history.addLast(new Operation(step, operation, argument));
      if (history.size() > 25) {
        history.removeFirst();
      }
    }

    private String randomId() {
      return "agent-" + random.nextInt(agents);
    }

    private RunnerMode randomMode() {
      return RunnerMode.values()[random.nextInt(RunnerMode.values().length)];
    }

    private Set<String> randomCapabilities() {
      Set<String> set = new HashSet<>();
      for (String capability : CAPABILITIES) {
        if (random.nextInt(3) == 0) {
          set.add(capability);
        }
      }
      return set;
    }

    /** A whole minute between three hours ago and half an hour ahead. */
    private Instant aroundNow() {
      return now.plus(Duration.ofMinutes(random.nextInt(210) - 180L));
    }

    private AgentSchedule randomRow(String id) {
      int unread = random.nextInt(3) == 0 ? 0 : random.nextInt(4);
      Instant oldestUnread = null;
      if (unread > 0 && random.nextInt(30) != 0) {
        // Unread notifications arrived in the past; rarely the row is inconsistent (no time).
        oldestUnread = now.minus(Duration.ofMinutes(random.nextInt(40)));
      }
      Instant lastActivated =
          random.nextInt(5) == 0 ? null : now.minus(Duration.ofMinutes(random.nextInt(120)));
      Instant snoozedUntil = random.nextInt(4) == 0 ? aroundNow() : null;
      return new AgentSchedule(
          id,
          randomCapabilities(),
          random.nextInt(3),
          unread,
          oldestUnread,
          lastActivated,
          INTERVALS.get(random.nextInt(INTERVALS.size())),
          random.nextInt(7) == 0,
          random.nextInt(10) == 0,
          snoozedUntil);
    }
  }
}
