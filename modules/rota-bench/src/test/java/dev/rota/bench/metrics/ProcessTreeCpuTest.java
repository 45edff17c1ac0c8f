package dev.rota.bench.metrics;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Reading a process tree's CPU time from /proc, with processes this test starts and stops. */
class ProcessTreeCpuTest {

  @Test
  void parsesFieldsFourteenToSeventeenPastACommandWithSpacesAndParentheses() {
    String line =
        "4242 (post gres) (x)) S 1 4242 4242 0 -1 4194560 100 0 0 0 17 5 23 11 20 0 1 0 900 0 0";
    assertArrayEquals(new long[] {17, 5, 23, 11}, ProcessTreeCpu.parse(line));
    assertNull(ProcessTreeCpu.parse("4242 (short) S 1 2 3"));
    assertNull(ProcessTreeCpu.parse("no command"));
  }

  @Test
  void knowsTheClockTicks() {
    assertTrue(ProcessTreeCpu.ticksPerSecond() > 0);
  }

  @Test
  void measuresABusyChild() throws Exception {
    assumeTrue(ProcessTreeCpu.available(), "no /proc here");
    Process busy = new ProcessBuilder("sh", "-c", "while :; do :; done").start();
    try {
      double cpu =
          await("a busy shell using CPU")
              .atMost(Duration.ofSeconds(10))
              .until(() -> ProcessTreeCpu.cpuMillis(busy.pid()), used -> used > 0);
      assertTrue(cpu < 10_000, "no more than it could have: " + cpu);
    } finally {
      busy.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }
    assertTrue(Double.isNaN(ProcessTreeCpu.cpuMillis(busy.pid())), "gone, so NaN");
  }

  @Test
  void countsTheChildrenATreeHasReapedAndItsLiveDescendants() throws Exception {
    assumeTrue(ProcessTreeCpu.available(), "no /proc here");
    // The outer shell runs a busy child to its end, waits for it (reaping it), says so, and then
    // keeps a live child of its own (sleep) while the test reads it.
    Process tree =
        new ProcessBuilder(
                "sh",
                "-c",
                "sh -c 'i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done'; echo reaped;"
                    + " sh -c 'while :; do :; done' & sleep 30")
            .redirectErrorStream(true)
            .start();
    try {
      BufferedReader out =
          new BufferedReader(new InputStreamReader(tree.getInputStream(), StandardCharsets.UTF_8));
      assertEquals("reaped", out.readLine());
      long[] root = ProcessTreeCpu.stat(tree.pid());
      double reapedMillis = (root[2] + root[3]) * 1000.0 / ProcessTreeCpu.ticksPerSecond();
      double ownMillis = (root[0] + root[1]) * 1000.0 / ProcessTreeCpu.ticksPerSecond();
      assertTrue(reapedMillis > 0, "the reaped busy child's CPU is the shell's cutime+cstime");
      double live =
          await("the live busy grandchild using CPU")
              .atMost(Duration.ofSeconds(10))
              .until(
                  () ->
                      tree.descendants()
                          .mapToDouble(
                              d -> {
                                long[] times = ProcessTreeCpu.stat(d.pid());
                                return times == null ? 0 : times[0] + times[1];
                              })
                          .sum(),
                  used -> used > 0);
      double total = ProcessTreeCpu.cpuMillis(tree.pid());
      assertTrue(
          total >= reapedMillis + ownMillis + live * 1000.0 / ProcessTreeCpu.ticksPerSecond(),
          "the tree counts its own, its reaped children's and its live descendants' CPU: "
              + total
              + " ms, reaped "
              + reapedMillis
              + " ms");
    } finally {
      tree.descendants().forEach(ProcessHandle::destroyForcibly);
      tree.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }
  }
}
