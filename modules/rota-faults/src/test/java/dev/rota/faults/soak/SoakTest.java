package dev.rota.faults.soak;

import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.faults.check.Verdict;
import java.nio.file.Files;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * The soak ({@link SoakRun}), only in the {@code soak} profile:
 *
 * <pre>mvn -B verify -Psoak -pl modules/rota-faults -am [-Drota.soak.minutes=8]</pre>
 *
 * Asserted: every acknowledged notification completed exactly once (the history checker: nothing
 * lost, no duplicate, everything drained, no stale completion or overlapping hold), the events
 * stream followed to the end, partitions dropped, and the long-run checks that the run is long
 * enough for (the database's size, throughput and p99; "not applicable" below their minutes).
 */
@EnabledIfSystemProperty(named = "rota.soak", matches = "on")
class SoakTest {

  @Test
  void aLongSteadyLoadKeepsItsSizeAndPaceAndLosesNothing() throws Exception {
    SoakSettings settings = SoakSettings.fromSystemProperties();
    SoakRun.Result result = new SoakRun(settings).run();
    System.out.println(Files.readString(result.report()));

    Verdict verdict = result.verdict();
    assertTrue(verdict.acknowledged() > 0, "nothing was acknowledged");
    assertTrue(verdict.safe(), "the history checker found: " + verdict.violations());
    assertNull(result.feedFailure(), "the events stream of the in-cluster runners broke off");
    assertTrue(
        result.inClusterLeasesOpen().isEmpty(),
        "in-cluster leases whose end the events stream never showed: "
            + result.inClusterLeasesOpen().stream().limit(10).toList());
    if (settings.minutes() * 60L > settings.retention().toSeconds() + 120) {
      assertTrue(result.partitionsDropped() > 0, "retention dropped no partition");
    }
    for (SoakReport.Check check : result.checks()) {
      assertTrue(!check.failed(), check.name() + ": " + check.detail());
    }
  }
}
