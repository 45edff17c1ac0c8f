package dev.rota.http;

import dev.rota.core.model.TextRules;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Logs requests refused for a client's mistake at INFO, at most {@link #LINES_PER_WINDOW} lines a
 * minute; past that, lines are counted and the count is logged with the next window's first line. A
 * client sending garbage in a loop therefore costs a few lines a minute, not one per request.
 */
final class ClientMistakeLog {
  static final int LINES_PER_WINDOW = 10;
  static final Duration WINDOW = Duration.ofMinutes(1);

  private static final Logger log = LoggerFactory.getLogger(ClientMistakeLog.class);
  private static final ClientMistakeLog INSTANCE = new ClientMistakeLog(System::nanoTime);

  private final LongSupplier nanoTime;
  private final AtomicLong windowStart;
  private final AtomicLong linesInWindow = new AtomicLong();
  private final AtomicLong suppressed = new AtomicLong();

  ClientMistakeLog(LongSupplier nanoTime) {
    this.nanoTime = nanoTime;
    this.windowStart = new AtomicLong(nanoTime.getAsLong());
  }

  static ClientMistakeLog get() {
    return INSTANCE;
  }

  /** Logs one refused request, unless this window already had its lines. */
  void refused(int status, String what) {
    long now = nanoTime.getAsLong();
    long start = windowStart.get();
    if (now - start >= WINDOW.toNanos() && windowStart.compareAndSet(start, now)) {
      linesInWindow.set(0);
      long dropped = suppressed.getAndSet(0);
      if (dropped > 0) {
        log.info("{} more refused requests were not logged in the last minute", dropped);
      }
    }
    if (linesInWindow.incrementAndGet() <= LINES_PER_WINDOW) {
      // Pekko's description may quote the request's URI.
      log.info(
          "refused a request with {}: {}",
          status,
          RequestTelemetry.loggable(TextRules.printable(what)));
    } else {
      suppressed.incrementAndGet();
    }
  }

  /** How many refusals the current window did not log (for tests). */
  long suppressed() {
    return suppressed.get();
  }
}
