package dev.rota.bench.budget;

import dev.rota.bench.metrics.ProcessTreeCpu;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * CPU time of this JVM's threads that run no Java code, so JFR's execution samples never see them:
 * the garbage collector's, the JIT compilers', the VM's own and JFR's. Read from Linux's {@code
 * /proc/self/task/<tid>/stat} (user and system ticks) and grouped by the thread's name ({@code
 * comm}, the first 15 characters of it). What the process spends beyond these groups is its Java
 * threads' CPU, which the samples split into stages.
 */
public final class JvmThreads {

  public static final String GC = "GC threads";
  public static final String JIT = "JIT compiler threads";
  public static final String VM = "VM threads (safepoints, VM operations)";
  public static final String JFR = "JFR's threads";

  /** The groups, each with the thread-name prefixes that put a thread in it. */
  static final Map<String, List<String>> GROUPS = groups();

  /** Every group in the order tables show them. */
  public static final List<String> ORDER = List.of(GC, JIT, VM, JFR);

  private static final Path TASKS = Path.of("/proc/self/task");

  /** Thread ids already named, so each thread's {@code comm} is read once. */
  private final Map<String, String> groupOfTask = new HashMap<>();

  private static Map<String, List<String>> groups() {
    Map<String, List<String>> groups = new LinkedHashMap<>();
    groups.put(
        GC,
        List.of(
            "GC Thread",
            "G1 ",
            "ZDirector",
            "ZDriver",
            "ZStat",
            "ZWorker",
            "ZUnmapper",
            "ZRuntime",
            "ZUncommit",
            "Shenandoah",
            "Parallel GC"));
    groups.put(JIT, List.of("C1 CompilerThre", "C2 CompilerThre"));
    groups.put(
        VM,
        List.of(
            "VM Thread",
            "VM Periodic Tas",
            "Service Thread",
            "Monitor Deflati",
            "Sweeper thread",
            "Notification Th"));
    groups.put(JFR, List.of("JFR "));
    return java.util.Collections.unmodifiableMap(groups);
  }

  /** Whether this JVM can read its threads' CPU here (Linux). */
  public static boolean available() {
    return Files.isDirectory(TASKS);
  }

  /** The group of a thread named {@code name}, or null for a Java thread. */
  static String groupOf(String name) {
    for (Map.Entry<String, List<String>> group : GROUPS.entrySet()) {
      for (String prefix : group.getValue()) {
        if (name.startsWith(prefix)) {
          return group.getKey();
        }
      }
    }
    return null;
  }

  /**
   * CPU milliseconds of every live thread outside the Java threads, by thread id, with its group;
   * empty where {@code /proc} is not there.
   */
  public Map<String, ThreadCpu> read() {
    Map<String, ThreadCpu> cpu = new HashMap<>();
    if (!available()) {
      return cpu;
    }
    try (DirectoryStream<Path> tasks = Files.newDirectoryStream(TASKS)) {
      for (Path task : tasks) {
        String tid = task.getFileName().toString();
        String group = groupOfTask.computeIfAbsent(tid, t -> nameGroup(task));
        if (group.isEmpty()) {
          continue;
        }
        double millis = cpuMillis(task);
        if (!Double.isNaN(millis)) {
          cpu.put(tid, new ThreadCpu(group, millis));
        }
      }
    } catch (IOException e) {
      // a thread ended while listing: the next read sees the rest
    }
    return cpu;
  }

  /** One thread's group and its CPU milliseconds so far. */
  public record ThreadCpu(String group, double millis) {}

  /**
   * CPU milliseconds by group between two reads: each thread's growth, a thread that started in
   * between counted from zero (one that ended in between is lost, and falls to the Java threads).
   */
  public static Map<String, Double> between(
      Map<String, ThreadCpu> from, Map<String, ThreadCpu> to) {
    Map<String, Double> byGroup = new LinkedHashMap<>();
    for (String group : ORDER) {
      byGroup.put(group, 0.0);
    }
    for (Map.Entry<String, ThreadCpu> thread : to.entrySet()) {
      ThreadCpu before = from.get(thread.getKey());
      double grown = thread.getValue().millis() - (before == null ? 0 : before.millis());
      byGroup.merge(thread.getValue().group(), Math.max(0, grown), Double::sum);
    }
    return byGroup;
  }

  private static String nameGroup(Path task) {
    try {
      String group = groupOf(Files.readString(task.resolve("comm")).strip());
      return group == null ? "" : group;
    } catch (IOException e) {
      return "";
    }
  }

  /** The thread's user and system time ({@link ProcessTreeCpu#parse}). */
  private static double cpuMillis(Path task) {
    try {
      long[] times = ProcessTreeCpu.parse(Files.readString(task.resolve("stat")));
      return times == null
          ? Double.NaN
          : (times[0] + times[1]) * 1000.0 / ProcessTreeCpu.ticksPerSecond();
    } catch (IOException e) {
      return Double.NaN;
    }
  }
}
