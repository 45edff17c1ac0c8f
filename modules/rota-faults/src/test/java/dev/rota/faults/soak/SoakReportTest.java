package dev.rota.faults.soak;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.faults.history.Event;
import dev.rota.faults.history.Event.Granted;
import dev.rota.faults.history.Event.Outcome;
import dev.rota.faults.history.Event.Published;
import dev.rota.faults.soak.SoakSampler.Sample;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongUnaryOperator;
import org.junit.jupiter.api.Test;

class SoakReportTest {
  private static final long START = 1_000_000L;
  private static final long MINUTE = 60_000L;
  private static final Duration RETENTION = Duration.ofMinutes(5);
  private static final Duration PERIOD = Duration.ofMinutes(5);

  @Test
  void databaseSizeWithinTheBandPasses() {
    List<Sample> samples = samples(60, t -> t < 10 * MINUTE ? 50 + t / MINUTE : 100 + t % 7);
    SoakReport.Check check = SoakReport.databaseSize(START, 60, RETENTION, PERIOD, samples);
    assertTrue(check.applicable());
    assertTrue(check.passed(), check.detail());
  }

  @Test
  void aDatabaseThatKeepsGrowingFails() {
    // 100 MB at minute 10, one more each minute: 150 at the end, far out of ±10 %.
    List<Sample> samples = samples(60, t -> 100 * 1024 * 1024 + t / MINUTE * 1024 * 1024);
    SoakReport.Check check = SoakReport.databaseSize(START, 60, RETENTION, PERIOD, samples);
    assertTrue(check.failed(), check.detail());
  }

  @Test
  void aShortRunCannotTellTheSizeNorThePace() {
    List<Sample> samples = samples(8, t -> 1);
    assertFalse(SoakReport.databaseSize(START, 8, RETENTION, PERIOD, samples).applicable());
    SoakStats.Index index = new SoakStats.Index(history(8, 200, m -> 100));
    List<SoakReport.Check> checks = SoakReport.lastAgainstEarly(START, 8, index);
    assertEquals(2, checks.size());
    assertTrue(checks.stream().noneMatch(SoakReport.Check::applicable));
    assertTrue(checks.stream().noneMatch(SoakReport.Check::failed));
  }

  @Test
  void aSteadyPaceAndLatencyPass() {
    SoakStats.Index index = new SoakStats.Index(history(40, 100, m -> 100));
    List<SoakReport.Check> checks = SoakReport.lastAgainstEarly(START, 40, index);
    assertTrue(checks.stream().allMatch(c -> c.applicable() && c.passed()), checks.toString());
  }

  @Test
  void aSlowerPaceOrAGrowingP99Fails() {
    // From minute 30 on, half the notifications and ten times the wait.
    SoakStats.Index index =
        new SoakStats.Index(
            history(40, 100, m -> m >= 30 ? 1000 : 100, m -> m >= 30 && m % 2 == 1));
    List<SoakReport.Check> checks = SoakReport.lastAgainstEarly(START, 40, index);
    assertTrue(checks.get(0).failed(), checks.get(0).toString());
    assertTrue(checks.get(1).failed(), checks.get(1).toString());
  }

  @Test
  void statsCountFirstGrantsAndTheirWaits() {
    List<Event> history = new ArrayList<>();
    history.add(new Published("a", "k1", 1, START, START + 10, Outcome.OK, "n1", "202"));
    history.add(grant("runner-0", "l1", "a", List.of("k1"), START + 100, START + 130));
    // Granted again after an expiry: not delivered twice, and its wait is the first grant's.
    history.add(grant(WebhookTurns.RUNNER, "l2", "a", List.of("k1"), START + 900, START + 900));
    SoakStats stats = new SoakStats.Index(history).between(START, START + 1000);
    assertEquals(1, stats.httpActivations());
    assertEquals(1, stats.inClusterActivations());
    assertEquals(1, stats.delivered());
    assertEquals(120, SoakStats.percentile(stats.notificationToClaimMs(), 99));
    assertEquals(30, SoakStats.percentile(stats.claimMs(), 50));
  }

  private static List<Sample> samples(int minutes, LongUnaryOperator bytesAt) {
    List<Sample> samples = new ArrayList<>();
    for (long t = 0; t < minutes * MINUTE; t += 15_000) {
      samples.add(new Sample(START + t, bytesAt.applyAsLong(t), 0, 0, 8, 0));
    }
    return samples;
  }

  private static List<Event> history(int minutes, int perMinute, LongUnaryOperator waitAt) {
    return history(minutes, perMinute, waitAt, m -> false);
  }

  /** {@code perMinute} notifications a minute, each granted {@code waitAt(minute)} ms later. */
  private static List<Event> history(
      int minutes,
      int perMinute,
      LongUnaryOperator waitAt,
      java.util.function.LongPredicate skipOddOnes) {
    List<Event> history = new ArrayList<>();
    for (int m = 0; m < minutes; m++) {
      for (int i = 0; i < perMinute; i++) {
        if (skipOddOnes.test(m) && i % 2 == 1) {
          continue;
        }
        long at = START + m * MINUTE + i * (MINUTE / perMinute);
        String key = "k-" + m + "-" + i;
        history.add(new Published("a", key, 1, at, at + 5, Outcome.OK, key, "202"));
        long granted = at + 5 + waitAt.applyAsLong(m);
        history.add(grant("runner-0", "l-" + key, "a", List.of(key), granted - 3, granted));
      }
    }
    return history;
  }

  private static Granted grant(
      String runner, String lease, String agent, List<String> keys, long start, long end) {
    return new Granted(runner, 1, lease, agent, end, end + 5000, keys, start, end);
  }
}
