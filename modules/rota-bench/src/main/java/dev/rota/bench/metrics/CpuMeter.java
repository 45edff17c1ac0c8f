package dev.rota.bench.metrics;

import java.lang.management.ManagementFactory;

/**
 * CPU time of this JVM (all its threads), for CPU-ms per activation. The systems {@code rota} and
 * {@code rota-http} run their node inside the bench's JVM, and {@code seed-sql} its runners
 * (threads issuing SQL), so for them this is the system's cost plus the bench's own small share
 * (counting; for {@code rota} also its executor); {@code rota-http}'s runners run in a JVM of their
 * own, whose CPU is reported apart, and the database's CPU is in none of them ({@link
 * ProcessTreeCpu}). For graphile-worker the work happens elsewhere (PostgreSQL, Node.js) and the
 * figure is not reported.
 */
public final class CpuMeter {
  private final long startNanos;

  private CpuMeter(long startNanos) {
    this.startNanos = startNanos;
  }

  public static CpuMeter start() {
    return new CpuMeter(processCpuNanos());
  }

  /** CPU milliseconds used since {@link #start}, or NaN where the JVM cannot tell. */
  public double elapsedMillis() {
    long now = processCpuNanos();
    return now < 0 || startNanos < 0 ? Double.NaN : (now - startNanos) / 1e6;
  }

  /** Whether the named system runs inside this JVM, so that its CPU is measured here. */
  public static boolean measures(String systemName) {
    return systemName.equals("rota")
        || systemName.equals("rota-http")
        || systemName.equals("seed-sql");
  }

  /** CPU milliseconds this JVM has used since it started, or NaN where it cannot tell. */
  public static double processCpuMillis() {
    long nanos = processCpuNanos();
    return nanos < 0 ? Double.NaN : nanos / 1e6;
  }

  private static long processCpuNanos() {
    if (ManagementFactory.getOperatingSystemMXBean()
        instanceof com.sun.management.OperatingSystemMXBean os) {
      return os.getProcessCpuTime();
    }
    return -1;
  }
}
