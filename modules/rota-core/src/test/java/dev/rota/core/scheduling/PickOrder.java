package dev.rota.core.scheduling;

import dev.rota.core.model.ActivationKind;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;

/**
 * Orders picks of any kind by the assignment rule, for tests that state the rule's ranking of kinds
 * directly: inbox before scheduled before exploration; among inbox picks, one that has waited past
 * the max wait first (oldest first), then the inbox order; among scheduled picks, the earliest
 * fire; among exploration picks, the staleness order.
 */
final class PickOrder {
  private PickOrder() {}

  static Comparator<HeadsBoard.Pick> at(Instant now, Duration inboxMaxWait) {
    return (a, b) -> {
      if (a.kind() != b.kind()) {
        // ActivationKind is declared in the rule's order.
        return a.kind().compareTo(b.kind());
      }
      if (a.kind() == ActivationKind.EXPLORATION) {
        return ScheduleOrder.STALENESS.compare(a.agent(), b.agent());
      }
      if (a.kind() == ActivationKind.SCHEDULED) {
        return ScheduleOrder.SCHEDULED.compare(a.agent(), b.agent());
      }
      boolean aLate = ScheduleOrder.hasWaitedTooLong(a.agent(), inboxMaxWait, now);
      boolean bLate = ScheduleOrder.hasWaitedTooLong(b.agent(), inboxMaxWait, now);
      if (aLate != bLate) {
        return aLate ? -1 : 1;
      }
      return aLate
          ? ScheduleOrder.OLDEST_UNREAD.compare(a.agent(), b.agent())
          : ScheduleOrder.INBOX.compare(a.agent(), b.agent());
    };
  }
}
