package dev.rota.bench.workload;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.bench.metrics.Recorder;
import dev.rota.bench.system.AgentIds;
import dev.rota.bench.system.Completion;
import dev.rota.core.model.ActivationKind;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class SteadyWindowTest {

  private static final long FIRST = 1_000_000_000L;
  private static final long SECOND = 1_000_000L;

  /** Warm-up 3 s, at least 10 s and 1,000 activations, cap 60 s. */
  private final SteadyWindow window =
      new SteadyWindow(
          new SteadyWindow.Goal(
              Duration.ofSeconds(3), Duration.ofSeconds(10), 1_000, Duration.ofSeconds(60)),
          FIRST);

  private static SteadyWindow.Mark at(double seconds, long activations, double cpu) {
    return new SteadyWindow.Mark(
        FIRST + (long) (seconds * SECOND),
        activations,
        activations * 2,
        cpu,
        cpu / 4,
        cpu / 8,
        cpu / 2);
  }

  @Test
  void countsNothingOfTheWarmUp() {
    window.add(at(0, 0, 0), at(3, 5_000, 9_000));

    assertEquals(0, window.activations());
    assertEquals(0, window.seconds());
    assertEquals(0, window.cpuMillis());
    assertEquals(0, window.segments());
    assertTrue(window.warming(FIRST + 3 * SECOND - 1));
    assertFalse(window.warming(FIRST + 3 * SECOND));
  }

  @Test
  void countsSteadySegmentsButNotTheTopUpsBetweenThem() {
    window.add(at(0, 0, 0), at(3, 5_000, 9_000));
    window.add(at(3, 5_000, 9_000), at(7, 5_400, 9_400));
    // 7 s to 9 s: a top-up, 800 activations and 5,000 CPU-ms not counted
    window.add(at(9, 6_200, 14_400), at(15, 6_800, 15_000));

    assertEquals(10.0, window.seconds(), 1e-9);
    assertEquals(1_000, window.activations());
    assertEquals(2_000, window.notifications());
    assertEquals(1_000, window.cpuMillis(), 1e-9);
    assertEquals(250, window.runnerCpuMillis(), 1e-9);
    assertEquals(125, window.workerCpuMillis(), 1e-9);
    assertEquals(500, window.postgresCpuMillis(), 1e-9);
    assertEquals(2, window.segments());
  }

  @Test
  void countsAWholeSpanTopUpsIncludedWhenAskedTo() {
    window.addAll(at(3, 5_000, 9_000), at(13, 6_800, 15_000));

    assertEquals(10.0, window.seconds(), 1e-9);
    assertEquals(1_800, window.activations());
    assertEquals(6_000, window.cpuMillis(), 1e-9);
    assertEquals(1, window.segments());
  }

  @Test
  void endsOnlyWhenBothTimeAndActivationsAreReached() {
    SteadyWindow.Mark from = at(3, 5_000, 0);
    assertFalse(window.reached(from, FIRST + 13 * SECOND, 5_999), "10 s but 999 activations");
    assertFalse(window.reached(from, FIRST + 12 * SECOND, 7_000), "2,000 activations but 9 s");
    assertTrue(window.reached(from, FIRST + 13 * SECOND, 6_000));
    assertFalse(
        window.reached(at(0, 0, 0), FIRST + 20 * SECOND, 50_000),
        "a segment begun in the warm-up never counts");
  }

  @Test
  void readBackReturnsWhatEachAgentReadAndForgetsIt() {
    Recorder recorder = new Recorder();
    ReadBack readBack = new ReadBack(recorder, 4);
    readBack.onComplete(new Completion(AgentIds.id(1), ActivationKind.INBOX, 3, 1));
    readBack.onComplete(new Completion(AgentIds.id(3), ActivationKind.INBOX, 2, 2));
    readBack.onComplete(new Completion(AgentIds.id(1), ActivationKind.INBOX, 1, 3));

    assertEquals(6, readBack.outstanding());
    assertArrayEquals(new int[] {0, 4, 0, 2}, readBack.drain().unreadPerAgent());
    assertEquals(0, readBack.outstanding());
    assertArrayEquals(new int[4], readBack.drain().unreadPerAgent());
    assertEquals(3, recorder.activations(), "reports are passed on");
  }
}
