package dev.rota.cluster.assign;

import static org.junit.jupiter.api.Assertions.assertEquals;

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
}
