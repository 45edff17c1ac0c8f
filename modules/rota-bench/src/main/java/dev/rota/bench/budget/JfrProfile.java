package dev.rota.bench.budget;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import javax.management.ObjectName;
import jdk.jfr.Configuration;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedStackTrace;
import jdk.jfr.consumer.RecordedThread;
import jdk.jfr.consumer.RecordingFile;

/**
 * A JFR recording of this JVM with the {@code profile} settings, and what the budget reads from it
 * ({@code jdk.jfr.consumer}): execution samples and allocation samples by stage ({@link
 * StageRules}), and garbage collections, each only where it fell inside a counted segment.
 */
final class JfrProfile {

  /** JFR's default of 64 frames cuts Pekko's stacks off before the actor that owns them. */
  static final int STACK_DEPTH = 256;

  private static volatile String stackDepthProblem;
  private static volatile boolean stackDepthSet;

  /** What a recording says about the counted segments. */
  record Profile(
      Map<String, Long> samples,
      Map<String, Double> allocatedBytes,
      long truncatedSamples,
      Map<String, Long> unplacedFrames,
      int gcPauses,
      double gcPauseMillis) {

    long totalSamples() {
      return samples.values().stream().mapToLong(Long::longValue).sum();
    }
  }

  private JfrProfile() {}

  /** Starts a recording with the {@code profile} settings, deep stacks if JFR allows. */
  static Recording start() throws IOException, java.text.ParseException {
    configureStackDepth();
    Recording recording = new Recording(Configuration.getConfiguration("profile"));
    recording.setName("rota-budget");
    recording.start();
    return recording;
  }

  /** Why the stack depth could not be raised (JFR had already started), or null. */
  static String stackDepthProblem() {
    return stackDepthProblem;
  }

  /**
   * {@code JFR.configure stackdepth=256} through the diagnostic command bean: takes effect only
   * before JFR's first recording in this JVM ({@code -XX:FlightRecorderOptions:stackdepth=256} on
   * the command line does the same).
   */
  private static synchronized void configureStackDepth() {
    if (stackDepthSet) {
      return;
    }
    stackDepthSet = true;
    try {
      Object answer =
          ManagementFactory.getPlatformMBeanServer()
              .invoke(
                  new ObjectName("com.sun.management:type=DiagnosticCommand"),
                  "jfrConfigure",
                  new Object[] {new String[] {"stackdepth=" + STACK_DEPTH}},
                  new String[] {String[].class.getName()});
      if (!String.valueOf(answer).contains(Integer.toString(STACK_DEPTH))) {
        stackDepthProblem = "JFR.configure answered: " + String.valueOf(answer).strip();
      }
    } catch (Exception e) {
      stackDepthProblem = "JFR.configure failed: " + e;
    }
  }

  /**
   * Reads {@code file}, keeping events whose start falls in one of {@code segments} ({@code
   * [fromMicros, toMicros]} since the epoch). Samples of the threads {@link JvmThreads} measures
   * itself (JFR's, the VM's) are left out, so no CPU is counted twice.
   */
  static Profile read(Path file, List<long[]> segments, StageRules rules) throws IOException {
    List<long[]> sorted = new ArrayList<>(segments);
    sorted.sort((a, b) -> Long.compare(a[0], b[0]));
    Map<String, Long> samples = new HashMap<>();
    Map<String, Double> allocated = new HashMap<>();
    Map<String, Long> unplaced = new HashMap<>();
    long truncated = 0;
    int gcPauses = 0;
    double gcPauseMillis = 0;
    try (RecordingFile recording = new RecordingFile(file)) {
      while (recording.hasMoreEvents()) {
        RecordedEvent event = recording.readEvent();
        String type = event.getEventType().getName();
        boolean sample = type.equals("jdk.ExecutionSample");
        boolean allocation = type.equals("jdk.ObjectAllocationSample");
        boolean gc = type.equals("jdk.GarbageCollection");
        if ((!sample && !allocation && !gc) || !inside(sorted, micros(event.getStartTime()))) {
          continue;
        }
        if (gc) {
          gcPauses++;
          gcPauseMillis += event.getDuration("sumOfPauses").toNanos() / 1e6;
          continue;
        }
        RecordedThread thread =
            sample ? event.getThread("sampledThread") : event.getThread("eventThread");
        if (thread != null
            && thread.getJavaName() != null
            && JvmThreads.groupOf(thread.getJavaName()) != null) {
          continue;
        }
        RecordedStackTrace stack = event.getStackTrace();
        List<String> frames = frames(stack);
        String stage = rules.classify(frames);
        if (sample) {
          samples.merge(stage, 1L, Long::sum);
          if (stack != null && stack.isTruncated()) {
            truncated++;
          }
          if (stage.equals(StageRules.OTHER)) {
            unplaced.merge(telling(frames), 1L, Long::sum);
          }
        } else {
          allocated.merge(stage, (double) event.getLong("weight"), Double::sum);
        }
      }
    }
    return new Profile(samples, allocated, truncated, unplaced, gcPauses, gcPauseMillis);
  }

  /** {@code class.method} of each frame, leaf first; empty for a sample without a stack. */
  static List<String> frames(RecordedStackTrace stack) {
    if (stack == null) {
      return List.of();
    }
    List<String> frames = new ArrayList<>(stack.getFrames().size());
    for (RecordedFrame frame : stack.getFrames()) {
      if (frame.getMethod() != null && frame.getMethod().getType() != null) {
        frames.add(frame.getMethod().getType().getName() + "." + frame.getMethod().getName());
      }
    }
    return frames;
  }

  /**
   * The frame that best says where an unplaced stack was: the first outside the JDK, or the leaf.
   */
  static String telling(List<String> frames) {
    for (String frame : frames) {
      if (!frame.startsWith("java.") && !frame.startsWith("jdk.") && !frame.startsWith("sun.")) {
        return frame;
      }
    }
    return frames.isEmpty() ? "(no stack)" : frames.get(0);
  }

  static long micros(Instant instant) {
    return instant.getEpochSecond() * 1_000_000L + instant.getNano() / 1_000;
  }

  /** Whether {@code micros} lies in one of the sorted, non-overlapping segments. */
  static boolean inside(List<long[]> sorted, long micros) {
    int low = 0;
    int high = sorted.size() - 1;
    while (low <= high) {
      int mid = (low + high) >>> 1;
      long[] segment = sorted.get(mid);
      if (micros < segment[0]) {
        high = mid - 1;
      } else if (micros > segment[1]) {
        low = mid + 1;
      } else {
        return true;
      }
    }
    return false;
  }
}
