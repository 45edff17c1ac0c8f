package dev.rota.cluster.runner;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.pekko.actor.typed.ActorRef;

/**
 * What a runner told to {@link Runner.Drain} owes: who waits for its {@link Runner.Drained}, and
 * the earliest deadline any of them gave for its current activation.
 */
final class Draining {
  private boolean active;
  private final List<ActorRef<Runner.Drained>> waiters = new ArrayList<>();
  private Duration deadline;

  boolean active() {
    return active;
  }

  /** The earliest deadline asked for; null lets the activation finish however long it takes. */
  Duration deadline() {
    return deadline;
  }

  void begin(Runner.Drain drain) {
    active = true;
    if (drain.replyTo() != null) {
      waiters.add(drain.replyTo());
    }
    if (drain.deadline() != null
        && (deadline == null || drain.deadline().compareTo(deadline) < 0)) {
      deadline = drain.deadline();
    }
  }

  /** Tells everyone waiting so far that the runner holds nothing any more. */
  void replyDrained(String runnerId) {
    waiters.forEach(w -> w.tell(new Runner.Drained(runnerId)));
    waiters.clear();
  }
}
