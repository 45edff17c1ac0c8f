package dev.rota.core.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.core.model.RunnerMode;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ScalingPolicyTest {
  private static final Instant T0 = Instant.parse("2026-11-24T00:00:00Z");
  private static final Duration T = Duration.ofMillis(500);
  private static final Duration DELAY = Duration.ofSeconds(30);

  private final ScalingPolicy policy = new ScalingPolicy(new ScalingPolicy.Settings(DELAY, 0.1));

  private static PoolSpec notification(int min, int max) {
    return new PoolSpec(
        "notify",
        RunnerMode.NOTIFICATION,
        Set.of(),
        false,
        min,
        max,
        0.75,
        Duration.ofSeconds(2),
        Duration.ZERO);
  }

  private static PoolSpec exploration(int min, int max, Duration staleness) {
    return new PoolSpec(
        "explore",
        RunnerMode.EXPLORATION,
        Set.of(),
        false,
        min,
        max,
        0.75,
        Duration.ofSeconds(30),
        staleness);
  }

  private static PoolLoad inbox(long waiting, long busyInbox, Instant oldestUnreadAt) {
    return new PoolLoad(
        new RunnerCount(busyInbox, busyInbox, busyInbox),
        waiting + busyInbox,
        waiting,
        oldestUnreadAt,
        0,
        Map.of(),
        null);
  }

  private static PoolLoad stale(Map<Long, Long> agentsByInterval, long active) {
    long agents = agentsByInterval.values().stream().mapToLong(Long::longValue).sum();
    return new PoolLoad(
        new RunnerCount(active, active, 0), 0, 0, null, agents, agentsByInterval, T0);
  }

  /** Runs rounds every second from {@code from} for {@code seconds}; returns the last decision. */
  private ScalingPolicy.Decision run(
      PoolSpec spec, PoolLoad load, ScalingPolicy.Decision last, Instant from, int seconds) {
    ScalingPolicy.Decision d = last;
    for (int s = 0; s < seconds; s++) {
      d = policy.decide(spec, load, T, d.state(), 0, from.plusSeconds(s));
    }
    return d;
  }

  @Test
  void aBurstOfInboxWorkGrowsThePoolToItsMaxAtTheNextRound() {
    PoolSpec spec = notification(1, 10);
    var first = policy.decide(spec, inbox(0, 0, null), T, null, 1, T0);
    assertEquals(1, first.desired());
    var burst = policy.decide(spec, inbox(100, 1, T0), T, first.state(), 1, T0.plusSeconds(1));
    // 1 busy / 0.75 + 100 waiting x 0.5 s / 2 s = 26.3 runners' worth: capped at 10.
    assertEquals(26.33, burst.need(), 0.01);
    assertEquals(10, burst.desired());
    assertTrue(burst.reason().contains("capped at max 10"), burst.reason());
  }

  @Test
  void aSmallerBurstGrowsThePoolToWhatDrainsItWithinTheTargetWait() {
    PoolSpec spec = notification(1, 50);
    var first = policy.decide(spec, inbox(0, 0, null), T, null, 1, T0);
    // 3 busy / 0.75 = 4, plus 12 waiting x 0.5 s / 2 s = 3: 7 runners.
    var d = policy.decide(spec, inbox(12, 3, T0), T, first.state(), 1, T0.plusSeconds(1));
    assertEquals(7, d.desired());
  }

  @Test
  void afterTheBacklogDrainsThePoolShrinksOnlyAfterTheScaleDownDelay() {
    PoolSpec spec = notification(1, 10);
    var d = policy.decide(spec, inbox(0, 0, null), T, null, 1, T0);
    d = policy.decide(spec, inbox(100, 1, T0), T, d.state(), 1, T0.plusSeconds(1));
    assertEquals(10, d.desired());
    Instant drained = T0.plusSeconds(2);
    Instant shrunk = null;
    for (int s = 0; s < 40 && shrunk == null; s++) {
      d = policy.decide(spec, PoolLoad.IDLE, T, d.state(), 10, drained.plusSeconds(s));
      if (d.desired() != 10) {
        shrunk = drained.plusSeconds(s);
        assertEquals(1, d.desired(), d.reason());
        assertTrue(d.reason().contains("down from 10"), d.reason());
      }
    }
    // The burst's need stays in the 30 s window until T0 + 31 s.
    assertEquals(T0.plusSeconds(31), shrunk);
  }

  @Test
  void shrinksToTheHighestNeedOfTheDelayNotBelow() {
    PoolSpec spec = notification(1, 20);
    var d = policy.decide(spec, inbox(0, 0, null), T, null, 20, T0);
    assertEquals(20, d.desired());
    // 6 busy with nothing waiting: 8 runners' worth, steady; with 10 % head-room, 9.
    d = run(spec, inbox(0, 6, null), d, T0.plusSeconds(1), 40);
    assertEquals(9, d.desired());
  }

  @Test
  void noiseAroundASteadyLoadDoesNotMakeThePoolFlap() {
    PoolSpec spec = notification(1, 50);
    Random random = new Random(42);
    var d = policy.decide(spec, inbox(0, 0, null), T, null, 1, T0);
    int ups = 0;
    int downs = 0;
    int last = d.desired();
    for (int s = 1; s < 2000; s++) {
      // 3..5 busy, 0..8 waiting: 4 to 10.7 runners' worth, around 7.
      PoolLoad load = inbox(random.nextInt(9), 3 + random.nextInt(3), T0.plusSeconds(s));
      d = policy.decide(spec, load, T, d.state(), 0, T0.plusSeconds(s));
      if (d.desired() > last) {
        ups++;
      } else if (d.desired() < last) {
        downs++;
      }
      last = d.desired();
    }
    // Up to the peak of the noise (8.7 runners' worth) in a few steps, and held there.
    assertEquals(0, downs, ups + " up, " + downs + " down");
    assertTrue(ups <= 4, ups + " up");
    assertEquals(9, d.desired());
  }

  @Test
  void aNeedJustBelowTheCountWithinTheHysteresisHoldsIt() {
    PoolSpec spec = notification(1, 50);
    var d = policy.decide(spec, inbox(0, 0, null), T, null, 10, T0);
    // 7 busy / 0.75 = 9.33: below 10, but not by 10 %.
    d = run(spec, inbox(0, 7, null), d, T0.plusSeconds(1), 120);
    assertEquals(10, d.desired(), d.reason());
  }

  @Test
  void anUpMoveRestartsTheScaleDownDelay() {
    PoolSpec spec = notification(1, 10);
    var d = policy.decide(spec, inbox(0, 0, null), T, null, 1, T0);
    d = policy.decide(spec, inbox(8, 0, T0), T, d.state(), 1, T0.plusSeconds(1));
    assertEquals(2, d.desired());
    d = run(spec, PoolLoad.IDLE, d, T0.plusSeconds(2), 20);
    d = policy.decide(spec, inbox(40, 0, T0), T, d.state(), 1, T0.plusSeconds(22));
    assertEquals(10, d.desired());
    d = run(spec, PoolLoad.IDLE, d, T0.plusSeconds(23), 25);
    assertEquals(10, d.desired(), "25 s after the last move: " + d.reason());
  }

  @Test
  void withoutAMeasuredActivationTimeEachWaitingAgentAsksForARunner() {
    PoolSpec spec = notification(1, 10);
    var d = policy.decide(spec, inbox(0, 0, null), Duration.ZERO, null, 1, T0);
    d = policy.decide(spec, inbox(4, 0, T0), Duration.ZERO, d.state(), 1, T0.plusSeconds(1));
    assertEquals(4, d.desired());
    assertTrue(d.reason().contains("T not measured"), d.reason());
  }

  @Test
  void anInboxWaitingPastItsTargetAsksForOneMoreRunner() {
    PoolSpec spec = notification(1, 10);
    var d = policy.decide(spec, inbox(0, 0, null), T, null, 3, T0);
    // 1 waiting x 0.5 s / 2 s = 0.25: no more runners, but it has waited 10 s (target 2 s).
    d = policy.decide(spec, inbox(1, 0, T0.minusSeconds(9)), T, d.state(), 3, T0.plusSeconds(1));
    assertEquals(4, d.desired(), d.reason());
    assertTrue(d.reason().contains("one more"), d.reason());
  }

  @Test
  void aNewScalerStartsFromThePoolsSizeAndDoesNotDropIt() {
    PoolSpec spec = notification(1, 10);
    var d = policy.decide(spec, PoolLoad.IDLE, T, null, 7, T0);
    assertEquals(7, d.desired());
    d = run(spec, PoolLoad.IDLE, d, T0.plusSeconds(1), 20);
    assertEquals(7, d.desired());
    d = run(spec, PoolLoad.IDLE, d, T0.plusSeconds(21), 20);
    assertEquals(1, d.desired());
  }

  @Test
  void anExplorationPoolFollowsTheRunnersATargetStalenessNeeds() {
    PoolSpec spec = exploration(1, 50, Duration.ofSeconds(10));
    var d = policy.decide(spec, stale(Map.of(0L, 100L), 1), T, null, 1, T0);
    // 100 agents x 0.5 s / 10 s = 5 runners.
    d = policy.decide(spec, stale(Map.of(0L, 100L), 1), T, d.state(), 1, T0.plusSeconds(1));
    assertEquals(5, d.desired(), d.reason());
    d = policy.decide(spec, stale(Map.of(0L, 400L), 5), T, d.state(), 5, T0.plusSeconds(2));
    assertEquals(20, d.desired(), d.reason());
    // Busy as they are, exploration runners ask for nothing more: only N, T and S count.
    d = run(spec, stale(Map.of(0L, 400L), 20), d, T0.plusSeconds(3), 100);
    assertEquals(20, d.desired(), d.reason());
    // Agents with a minimum interval of 100 s need a turn only every 100 s, not every 10 s: 2
    // runners' worth, 3 with the hysteresis as head-room.
    d = run(spec, stale(Map.of(100L, 400L), 20), d, T0.plusSeconds(103), 40);
    assertEquals(3, d.desired(), d.reason());
  }

  @Test
  void aHybridPoolAddsInboxAndStalenessWork() {
    PoolSpec spec =
        new PoolSpec(
            "mixed",
            RunnerMode.HYBRID,
            Set.of("code"),
            false,
            0,
            100,
            0.5,
            Duration.ofSeconds(5),
            Duration.ofSeconds(50));
    PoolLoad load =
        new PoolLoad(new RunnerCount(10, 10, 2), 12, 10, T0, 1000, Map.of(0L, 1000L), T0);
    var d = policy.decide(spec, load, T, null, 0, T0);
    d = policy.decide(spec, load, T, d.state(), 0, T0.plusSeconds(1));
    // inbox: 2 / 0.5 + 10 x 0.5 / 5 = 5; staleness: 1000 x 0.5 / 50 = 10.
    assertEquals(15, d.desired(), d.reason());
  }

  @Test
  void theCountStaysWithinTheBoundsWhateverTheNeed() {
    PoolSpec spec = notification(2, 4);
    var d = policy.decide(spec, PoolLoad.IDLE, T, null, 0, T0);
    assertEquals(2, d.desired());
    d = policy.decide(spec, inbox(1000, 0, T0), T, d.state(), 2, T0.plusSeconds(1));
    assertEquals(4, d.desired());
    d = run(spec, PoolLoad.IDLE, d, T0.plusSeconds(2), 100);
    assertEquals(2, d.desired());
  }

  @Test
  void refusesSettingsThatCannotWork() {
    assertThrows(
        IllegalArgumentException.class,
        () -> new ScalingPolicy.Settings(Duration.ofSeconds(-1), 0.1));
    assertThrows(
        IllegalArgumentException.class, () -> new ScalingPolicy.Settings(Duration.ZERO, 1.0));
    var e = assertThrows(IllegalArgumentException.class, () -> notification(5, 4));
    assertTrue(e.getMessage().contains("min <= max"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> exploration(0, 4, Duration.ZERO));
    assertTrue(e.getMessage().contains("target-staleness"), e.getMessage());
  }

  @Test
  void holdingKeepsTheCountWhateverTheLoad() {
    PoolSpec spec = notification(1, 10);
    var d = policy.decide(spec, PoolLoad.IDLE, T, null, 2, T0);
    d = policy.hold(spec, d.state(), 2, T0.plusSeconds(1), "system paused");
    assertEquals(2, d.desired());
    assertTrue(d.reason().startsWith("system paused"), d.reason());
    // After the pause, the backlog that built up counts at once.
    d = policy.decide(spec, inbox(100, 0, T0), T, d.state(), 2, T0.plusSeconds(2));
    assertEquals(10, d.desired());
    // A scaler that starts during a pause holds what the pool has.
    assertEquals(4, policy.hold(spec, null, 4, T0, "system paused").desired());
  }
}
