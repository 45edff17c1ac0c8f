package dev.rota.bench.metrics;

import java.lang.management.ManagementFactory;

/**
 * CPU time of this JVM (all its threads), for CPU-ms per activation. The systems {@code rota} and
 * {@code rota-http} run their node inside the bench's JVM, so for them this is the node's cost plus
 * the bench's own small share (its executor, counting; for {@code rota-http} also the runner
 * threads' HTTP client); the database's CPU is not in it. For the other systems the work happens
 * elsewhere (PostgreSQL, Node.js) and the figure is not reported.
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
    return systemName.equals("rota") || systemName.equals("rota-http");
  }

  private static long processCpuNanos() {
    if (ManagementFactory.getOperatingSystemMXBean()
        instanceof com.sun.management.OperatingSystemMXBean os) {
      return os.getProcessCpuTime();
    }
    return -1;
  }
}
