package dev.rota.http;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** Refused requests are logged at most ten lines a minute; the rest are counted. */
class ClientMistakeLogTest {

  @Test
  void logsTheFirstLinesOfAMinuteAndCountsTheRest() {
    AtomicLong now = new AtomicLong();
    ClientMistakeLog log = new ClientMistakeLog(now::get);
    for (int i = 0; i < 25; i++) {
      log.refused(400, "bad request " + i);
    }
    assertEquals(25 - ClientMistakeLog.LINES_PER_WINDOW, log.suppressed());

    now.addAndGet(ClientMistakeLog.WINDOW.toNanos());
    log.refused(400, "next minute");
    assertEquals(0, log.suppressed(), "a new window logs again and reports what it dropped");
  }
}
