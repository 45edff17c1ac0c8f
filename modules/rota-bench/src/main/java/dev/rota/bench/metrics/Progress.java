package dev.rota.bench.metrics;

import java.io.PrintStream;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/** Prints a status line for the running measurement every few seconds. */
public final class Progress implements AutoCloseable {

  private final PrintStream out;
  private final Duration interval;
  private final ScheduledExecutorService timer =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread t = new Thread(r, "bench-progress");
            t.setDaemon(true);
            return t;
          });
  private ScheduledFuture<?> current;

  public Progress(PrintStream out, Duration interval) {
    this.out = out;
    this.interval = interval;
  }

  public PrintStream out() {
    return out;
  }

  /** Starts reporting {@code prefix + status.get()}; replaces any report running. */
  public synchronized void start(String prefix, Supplier<String> status) {
    stop();
    long millis = interval.toMillis();
    current =
        timer.scheduleAtFixedRate(
            () -> {
              try {
                out.println(prefix + status.get());
              } catch (RuntimeException e) {
                out.println(prefix + "(status unavailable: " + e.getMessage() + ")");
              }
            },
            millis,
            millis,
            TimeUnit.MILLISECONDS);
  }

  public synchronized void stop() {
    if (current != null) {
      current.cancel(false);
      current = null;
    }
  }

  @Override
  public void close() {
    stop();
    timer.shutdownNow();
  }
}
