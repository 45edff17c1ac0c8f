package dev.rota.core.health;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.core.health.RunnerOutcome.Kind;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class RunnerRecordTest {
  private static final Instant T0 = Instant.parse("2026-11-24T12:00:00Z");
  private static final HealthPolicy POLICY = HealthPolicy.DEFAULT;

  private static RunnerOutcome outcome(Kind kind, long atSeconds, long tookMillis) {
    return new RunnerOutcome(
        kind,
        T0.plusSeconds(atSeconds),
        Duration.ofMillis(tookMillis),
        kind == Kind.COMPLETED ? null : "boom " + atSeconds);
  }

  @Test
  void degradesOnTheThirdBadActivationInARow() {
    RunnerRecord r = new RunnerRecord();
    assertFalse(r.record(outcome(Kind.FAILED, 0, 100), POLICY));
    assertFalse(r.record(outcome(Kind.EXPIRED, 10, 100), POLICY));
    assertTrue(r.record(outcome(Kind.FAILED, 20, 100), POLICY));
    assertEquals(0, r.streak());
  }

  @Test
  void aCompletionBreaksTheStreak() {
    RunnerRecord r = new RunnerRecord();
    r.record(outcome(Kind.FAILED, 0, 100), POLICY);
    r.record(outcome(Kind.FAILED, 1, 100), POLICY);
    r.record(outcome(Kind.COMPLETED, 2, 100), POLICY);
    assertFalse(r.record(outcome(Kind.FAILED, 3, 100), POLICY));
    assertEquals(1, r.streak());
  }

  @Test
  void failuresSpreadBeyondTheWindowDoNotDegrade() {
    RunnerRecord r = new RunnerRecord();
    r.record(outcome(Kind.FAILED, 0, 100), POLICY);
    r.record(outcome(Kind.FAILED, 300, 100), POLICY);
    assertFalse(r.record(outcome(Kind.FAILED, 601, 100), POLICY));
    // The last three (300, 601, 700) lie within ten minutes.
    assertTrue(r.record(outcome(Kind.FAILED, 700, 100), POLICY));
  }

  @Test
  void countsMeanAndP95OverTheWindowWithoutExpiries() {
    RunnerRecord r = new RunnerRecord();
    for (int i = 1; i <= 20; i++) {
      r.record(outcome(Kind.COMPLETED, i, i * 100L), POLICY);
    }
    r.record(outcome(Kind.FAILED, 30, 3000), POLICY);
    r.record(outcome(Kind.EXPIRED, 40, 300_000), POLICY);
    RunnerStats s = r.stats(T0.plusSeconds(60), Duration.ofHours(1));
    assertEquals(20, s.completed());
    assertEquals(1, s.failed());
    assertEquals(1, s.expired());
    assertEquals((2100 * 10 + 3000) / 21.0 / 1000.0, s.meanActivationSeconds(), 0.001);
    assertEquals(2.0, s.p95ActivationSeconds());
    assertEquals("boom 40", s.lastError());
    assertEquals(T0.plusSeconds(40), s.lastErrorAt());
  }

  @Test
  void forgetsOutcomesOlderThanTheWindow() {
    RunnerRecord r = new RunnerRecord();
    r.record(outcome(Kind.FAILED, 0, 100), POLICY);
    r.record(outcome(Kind.COMPLETED, 3000, 100), POLICY);
    RunnerStats s = r.stats(T0.plusSeconds(3700), Duration.ofHours(1));
    assertEquals(1, s.completed());
    assertEquals(0, s.failed());
    assertNull(s.lastError());
  }

  @Test
  void namesThePoolOfAnInClusterRunner() {
    assertEquals("default", RunnerOutcome.poolOf("node-1:2551/default-3"));
    assertEquals("external", RunnerOutcome.poolOf("worker-7"));
  }
}
