package dev.rota.bench.metrics;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * CPU time of a process tree outside this JVM (the bench's PostgreSQL, graphile's Node worker),
 * read from Linux's {@code /proc}: the root's own user and system time ({@code /proc/<pid>/stat}
 * fields 14 and 15), the time of its children it has already reaped (fields 16 and 17, which hold
 * their reaped children's in turn), and the user and system time of every live descendant. A
 * PostgreSQL backend is a child of the postmaster, so a backend that ends moves from the live part
 * into the postmaster's reaped part. A child reaped between reading it and reading the root may be
 * counted twice, once in a while and by one process's time: negligible over a level.
 */
public final class ProcessTreeCpu {

  private static final Path PROC = Path.of("/proc");
  private static volatile double ticksPerSecond;

  private ProcessTreeCpu() {}

  /** Whether this machine has {@code /proc} to read; where it has not, everything here is NaN. */
  public static boolean available() {
    return Files.isReadable(PROC.resolve("self").resolve("stat"));
  }

  /**
   * CPU milliseconds used so far by process {@code pid}, its reaped children and its live
   * descendants; NaN where {@code /proc} is not there or the process is gone.
   */
  public static double cpuMillis(long pid) {
    if (!available()) {
      return Double.NaN;
    }
    long ticks = 0;
    // The descendants before the root: one reaped in between is then counted twice rather than
    // missed.
    List<ProcessHandle> descendants =
        ProcessHandle.of(pid).map(p -> p.descendants().toList()).orElse(List.of());
    for (ProcessHandle descendant : descendants) {
      long[] times = stat(descendant.pid());
      if (times != null) {
        ticks += times[0] + times[1];
      }
    }
    long[] root = stat(pid);
    if (root == null) {
      return Double.NaN;
    }
    ticks += root[0] + root[1] + root[2] + root[3];
    return ticks * 1000.0 / ticksPerSecond();
  }

  /** utime, stime, cutime, cstime of {@code pid} in clock ticks, or null if it cannot be read. */
  public static long[] stat(long pid) {
    String line;
    try {
      line = Files.readString(PROC.resolve(Long.toString(pid)).resolve("stat"));
    } catch (IOException | RuntimeException e) {
      return null;
    }
    return parse(line);
  }

  /**
   * Fields 14 to 17 of a {@code /proc/<pid>/stat} line. Field 2, the command in parentheses, may
   * hold spaces and parentheses itself, so fields are counted from the last {@code )}, which is
   * followed by field 3.
   */
  public static long[] parse(String line) {
    int close = line.lastIndexOf(')');
    if (close < 0) {
      return null;
    }
    String[] fields = line.substring(close + 1).trim().split("\\s+");
    // fields[0] is field 3, so field n is fields[n - 3].
    if (fields.length < 15) {
      return null;
    }
    try {
      return new long[] {
        Long.parseLong(fields[11]),
        Long.parseLong(fields[12]),
        Long.parseLong(fields[13]),
        Long.parseLong(fields[14])
      };
    } catch (NumberFormatException e) {
      return null;
    }
  }

  /** Clock ticks per second ({@code getconf CLK_TCK}), 100 if that cannot be asked. */
  public static double ticksPerSecond() {
    double known = ticksPerSecond;
    if (known > 0) {
      return known;
    }
    double asked = 100;
    try {
      Process getconf = new ProcessBuilder("getconf", "CLK_TCK").redirectErrorStream(true).start();
      getconf.getOutputStream().close();
      String out;
      try (InputStream in = getconf.getInputStream()) {
        out = new String(in.readAllBytes(), StandardCharsets.UTF_8).trim();
      }
      if (getconf.waitFor(5, TimeUnit.SECONDS) && getconf.exitValue() == 0) {
        long value = Long.parseLong(out);
        if (value > 0) {
          asked = value;
        }
      } else {
        getconf.destroyForcibly();
      }
    } catch (IOException | NumberFormatException e) {
      // keep 100, Linux's USER_HZ nearly everywhere
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    ticksPerSecond = asked;
    return asked;
  }
}
