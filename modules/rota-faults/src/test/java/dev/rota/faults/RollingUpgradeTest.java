package dev.rota.faults;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.faults.check.Verdict;
import dev.rota.faults.harness.FaultKind;
import dev.rota.faults.harness.FaultRun;
import dev.rota.faults.harness.FaultTable;
import dev.rota.faults.harness.OldJar;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A rolling upgrade on three nodes loses nothing: the nodes start from the jar of an earlier commit
 * ({@code rota.upgrade.from}, built once and cached, {@link OldJar}) on one PostgreSQL, the fault
 * suite's workload runs (producers, runners over HTTP, new input of every kind, agents that send
 * and call), each node in turn leaves gracefully and is started from the current jar, the load goes
 * on on the all-new cluster, the inboxes are drained and the history is checked: nothing
 * acknowledged lost, no stale completion accepted, no overlapping hold, no duplicate, every send
 * and call delivered once. Only in {@code -Pupgrade-rolling}; the table goes to stdout and {@code
 * target/faults/upgrade-table.md}.
 */
class RollingUpgradeTest {

  @Test
  void aRollingUpgradeFromTheOldJarLosesNothing() throws IOException {
    Path repo = Path.of(property("rota.upgrade.repo", "../..")).toAbsolutePath().normalize();
    OldJar old =
        OldJar.of(
            property("rota.upgrade.from", ""),
            repo,
            Path.of(property("rota.upgrade.mvn", "mvn")),
            Path.of(
                property(
                    "rota.upgrade.cache",
                    System.getProperty("user.home") + "/.cache/rota/old-jars")));
    Path jar = Path.of(property("rota.faults.jar", "../rota-server/target/rota-server.jar"));
    Path config = Path.of(property("rota.faults.config", "../../config/cluster-node.conf"));
    Path out = Path.of(property("rota.faults.out", "target/faults"));
    int runs = Integer.parseInt(property("rota.upgrade.runs", "1"));
    FaultRun faultRun =
        new FaultRun(FaultRun.Settings.defaults(jar.toAbsolutePath(), config.toAbsolutePath()))
            .withUpgradeFrom(old);

    List<FaultRun.Result> results = new ArrayList<>();
    List<String> failures = new ArrayList<>();
    for (int run = 0; run < runs; run++) {
      FaultRun.Result result =
          faultRun.run(FaultKind.ROLLING_UPGRADE, run, out.resolve("rolling-upgrade-" + run));
      results.add(result);
      Verdict verdict = result.verdict();
      // Something must have flowed through the roll, or the run shows nothing.
      if (verdict.acknowledged() == 0 || verdict.completed() == 0) {
        failures.add("run " + run + ": nothing acknowledged or completed");
      }
      result.violations().stream()
          .limit(20)
          .forEach(v -> failures.add("run " + result.run() + ": " + v));
    }
    String table = FaultTable.render(results, Long.MAX_VALUE, Long.MAX_VALUE);
    String header = String.format("rolling upgrade from %s to the current jar%n", old.commit());
    System.out.println(header + table);
    Files.createDirectories(out);
    Files.writeString(out.resolve("upgrade-table.md"), header + table);
    assertTrue(failures.isEmpty(), String.join("\n", failures) + "\n" + table);
    for (FaultRun.Result result : results) {
      // Every node left within a minute of its SIGTERM (the JVM's status for it is 143).
      assertEquals("143,143,143", result.exitStatus(), "exit statuses of the nodes that left");
    }
  }

  private static String property(String name, String fallback) {
    String value = System.getProperty(name);
    return value == null || value.isBlank() ? fallback : value;
  }
}
