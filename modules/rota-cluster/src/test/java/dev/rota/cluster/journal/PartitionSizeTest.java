package dev.rota.cluster.journal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** How the journal's maintenance sizes a new partition ({@link PartitionSizing#sized}). */
class PartitionSizeTest {
  private static final long MIN = 10_000;
  private static final long MAX = 50_000_000;

  @Test
  void aSteadyRateGivesWhatTheLastEighthWrote() {
    assertEquals(15_000, PartitionSizing.sized(15_000, 14_000, MIN, MAX));
  }

  @Test
  void aJumpOfTheSequenceGrowsTheNextPartitionToTwiceTheNewestAtMost() {
    // The ordering sequence moved 300,000 ahead in the window: not a rate to size by.
    assertEquals(20_000, PartitionSizing.sized(313_902, 10_000, MIN, MAX));
  }

  @Test
  void aFallingRateShrinksTheNextPartitionAtOnceDownToTheMinimum() {
    assertEquals(12_000, PartitionSizing.sized(12_000, 400_000, MIN, MAX));
    assertEquals(MIN, PartitionSizing.sized(300, 400_000, MIN, MAX));
  }

  @Test
  void withoutASizedPartitionTheWindowDecidesWithinTheBounds() {
    assertEquals(313_902, PartitionSizing.sized(313_902, 0, MIN, MAX));
    assertEquals(MAX, PartitionSizing.sized(90_000_000, 0, MIN, MAX));
  }

  @Test
  void aYoungJournalsRateIsExtrapolatedToTheWindow() {
    assertEquals(
        1_200_000,
        PartitionSizing.extrapolated(20_000, Duration.ofMinutes(1), Duration.ofHours(1)));
  }

  @Test
  void noRateFromMarksUnderASecondApartOrFromNothingWritten() {
    assertEquals(
        0, PartitionSizing.extrapolated(20_000, Duration.ofMillis(999), Duration.ofHours(1)));
    assertEquals(0, PartitionSizing.extrapolated(0, Duration.ofMinutes(1), Duration.ofHours(1)));
  }
}
