package dev.rota.core.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CapacityTest {

  @Test
  void idealIntervalIsAgentsTimesActivationOverRunners() {
    // 1,000 agents, 30 s per activation, 10 runners: each agent every 3,000 s.
    assertEquals(
        Duration.ofSeconds(3000), Capacity.idealInterval(1000, Duration.ofSeconds(30), 10));
  }

  @Test
  void idealIntervalIsZeroWithoutRunnersOrMeasurement() {
    assertEquals(Duration.ZERO, Capacity.idealInterval(1000, Duration.ZERO, 10));
    assertEquals(Duration.ZERO, Capacity.idealInterval(1000, Duration.ofSeconds(1), 0));
  }

  @Test
  void aTargetStalenessNeedsAgentsTimesActivationOverTheTarget() {
    // 1,000 agents x 30 s / 1 h = 8.3: 9 runners.
    assertEquals(
        9, Capacity.runnersFor(Map.of(0L, 1000L), Duration.ofSeconds(30), Duration.ofHours(1)));
    // Exactly 10 is 10, not 11.
    assertEquals(
        10, Capacity.runnersFor(Map.of(0L, 100L), Duration.ofSeconds(1), Duration.ofSeconds(10)));
  }

  @Test
  void agentsWithALongerMinimumIntervalNeedLess() {
    // 100 agents free every 10 s, 100 only every 100 s: 100/10 + 100/100 = 11 turns a second.
    assertEquals(
        11.0,
        Capacity.load(Map.of(0L, 100L, 100L, 100L), Duration.ofSeconds(1), Duration.ofSeconds(10)),
        1e-9);
  }

  @Test
  void withoutAMeasuredActivationNothingCanBeSaid() {
    assertEquals(0, Capacity.runnersFor(Map.of(0L, 100L), Duration.ZERO, Duration.ofSeconds(1)));
  }
}
