package dev.rota.faults.harness;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * The machine's 1-minute load average during a run (from when its nodes are up), read from {@code
 * /proc/loadavg} every few seconds: the suite shares its cores with the nodes, PostgreSQL and
 * whatever else runs, and its windows mean little without the load they were measured at. The
 * samples go to {@code load.txt} in the run's directory (epoch milliseconds and the three averages,
 * one sample a line).
 */
final class LoadSampler implements AutoCloseable {
  private static final Path LOADAVG = Path.of("/proc/loadavg");
  private static final Duration EVERY = Duration.ofSeconds(5);

  private final Path out;
  private final List<double[]> samples = new ArrayList<>();
  private final List<String> lines = new ArrayList<>();
  private final Thread thread;
  private volatile boolean running = true;

  LoadSampler(Path dir) {
    this.out = dir.resolve("load.txt");
    this.thread = new Thread(this::sample, "load-sampler");
    thread.setDaemon(true);
    thread.start();
  }

  private void sample() {
    while (running) {
      try {
        String[] fields = Files.readString(LOADAVG).trim().split("\\s+");
        double[] averages = {
          Double.parseDouble(fields[0]),
          Double.parseDouble(fields[1]),
          Double.parseDouble(fields[2])
        };
        synchronized (this) {
          samples.add(averages);
          lines.add(
              Instant.now().toEpochMilli() + " " + fields[0] + " " + fields[1] + " " + fields[2]);
        }
      } catch (IOException | RuntimeException e) {
        return; // no /proc here: no figures
      }
      FaultCluster.sleep(EVERY);
    }
  }

  /** Stops sampling; the 1-minute averages seen, as {@link #range()}. */
  String stop() {
    close();
    return range();
  }

  /** The 1-minute averages seen, "min–max" (one figure when they agree), or "-" without any. */
  synchronized String range() {
    if (samples.isEmpty()) {
      return "-";
    }
    double min = samples.stream().mapToDouble(s -> s[0]).min().orElseThrow();
    double max = samples.stream().mapToDouble(s -> s[0]).max().orElseThrow();
    String low = String.format("%.1f", min);
    String high = String.format("%.1f", max);
    return low.equals(high) ? low : low + "–" + high;
  }

  @Override
  public void close() {
    if (!running) {
      return;
    }
    running = false;
    thread.interrupt();
    try {
      thread.join(1000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    synchronized (this) {
      try {
        Files.createDirectories(out.getParent());
        Files.write(out, lines);
      } catch (IOException e) {
        // The figures are also in the result; the file is a convenience.
      }
    }
  }
}
