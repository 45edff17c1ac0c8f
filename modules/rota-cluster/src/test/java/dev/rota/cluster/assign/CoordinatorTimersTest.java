package dev.rota.cluster.assign;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** A coordinator's park timer never goes further than the scheduler can time. */
class CoordinatorTimersTest {
  private static final Instant NOW = Instant.parse("2026-11-23T10:00:00Z");

  @Test
  void wakesJustAfterANearEligibilityChange() {
    assertEquals(
        Duration.ofSeconds(30).plusMillis(1),
        Coordinator.untilEligibilityChange(NOW, NOW.plusSeconds(30)));
  }

  @Test
  void looksAgainWithinTheHourWhenTheChangeIsFarAhead() {
    // A year ahead: once a "Task scheduled too far in future" crash of the coordinator.
    assertEquals(
        Coordinator.LONGEST_PARK_CHECK,
        Coordinator.untilEligibilityChange(NOW, NOW.plus(Duration.ofDays(365))));
    assertEquals(
        Coordinator.LONGEST_PARK_CHECK,
        Coordinator.untilEligibilityChange(NOW, Instant.MAX.minusSeconds(1)));
  }

  @Test
  void wakesAtOnceForAChangeAlreadyPast() {
    assertEquals(Duration.ZERO, Coordinator.untilEligibilityChange(NOW, NOW.minusSeconds(5)));
  }

  @Test
  void partitionsFirstReconcileOneAfterAnotherOverAnInterval() {
    Duration interval = Duration.ofSeconds(32);
    java.util.Set<Duration> firsts = new java.util.TreeSet<>();
    for (int p = 0; p < 16; p++) {
      Duration first = Coordinator.firstReconcile(interval, p, 16);
      assertTrue(first.compareTo(interval) >= 0 && first.compareTo(interval.multipliedBy(2)) < 0);
      firsts.add(first);
    }
    assertEquals(16, firsts.size());
    assertEquals(
        Duration.ofSeconds(2), Coordinator.firstReconcile(interval, 1, 16).minus(interval));
  }
}
