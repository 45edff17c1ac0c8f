package dev.rota.cluster.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** Runner time in a sliding minute: only the part of a lease inside the window counts. */
class HeldTimeWindowTest {
  private static final long NOW = 1_800_000_000_500L;

  @Test
  void countsAShortLeaseWhole() {
    HeldTimeWindow window = new HeldTimeWindow(60);
    window.add(NOW - 2_500, NOW - 500, NOW);
    assertEquals(2_000, window.total(NOW));
  }

  @Test
  void countsOnlyTheWindowOfALeaseLongerThanIt() {
    HeldTimeWindow window = new HeldTimeWindow(60);
    window.add(NOW - 300_000, NOW, NOW);
    // The window is the current second and the 59 before it.
    assertEquals(59_500, window.total(NOW));
  }

  @Test
  void forgetsSecondsThatLeftTheWindow() {
    HeldTimeWindow window = new HeldTimeWindow(60);
    window.add(NOW - 1_000, NOW, NOW);
    assertEquals(1_000, window.total(NOW + 30_000));
    assertEquals(0, window.total(NOW + 61_000));
  }

  @Test
  void addsLeasesOfTheSameSeconds() {
    HeldTimeWindow window = new HeldTimeWindow(60);
    window.add(NOW - 1_000, NOW, NOW);
    window.add(NOW - 1_000, NOW, NOW);
    assertEquals(2_000, window.total(NOW));
  }
}
