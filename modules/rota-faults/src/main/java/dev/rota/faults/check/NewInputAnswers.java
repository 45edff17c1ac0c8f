package dev.rota.faults.check;

import dev.rota.faults.history.Event.CompleteAttempt;
import dev.rota.faults.history.Event.Granted;
import dev.rota.faults.history.Event.Outcome;
import dev.rota.faults.history.Event.Published;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The part of {@link HistoryChecker} that reads interrupts from the producers' answers: when a
 * lease new input interrupted stopped being held. (A steered notification is the lease's only when
 * its runner was given it, {@link dev.rota.faults.history.Event.Steered}: the runner's completion
 * names those, and any other steered notification returns to the inbox, so the producers' answers
 * say nothing about which turn completes it.)
 */
final class NewInputAnswers {
  private NewInputAnswers() {}

  /**
   * A notification answered {@code interrupted} ended the lease granted last before the answer that
   * does not carry the interrupting notification: the next grant may come before the answer, and it
   * carries the interrupting notification (stored by that very write), which no earlier grant can.
   * A lease whose completion was accepted before the publish was sent had already ended: the
   * interrupt ended a lease the history does not know (its grant's answer was lost), and nothing is
   * attributed. A runner may never hear of its interrupt; the answer is the server's word. The hold
   * ends no earlier than the later of the publish's sending and the lease's grant; that earliest
   * moment is taken.
   */
  static void attribute(
      List<Published> published,
      Map<String, List<Granted>> grantsByAgent,
      Map<String, List<CompleteAttempt>> attemptsByLease,
      Map<String, Long> interruptedAt) {
    for (Published p : published) {
      if (p.outcome() != Outcome.OK
          || p.detail() == null
          || !p.detail().contains(Published.INTERRUPTED)) {
        continue;
      }
      Granted lease = null;
      for (Granted g : grantsByAgent.getOrDefault(p.agentId(), List.of())) {
        if (g.grantedAt() <= p.endMs()
            && !g.keys().contains(p.key())
            && (lease == null || g.grantedAt() > lease.grantedAt())) {
          lease = g;
        }
      }
      if (lease == null || completedBefore(lease, p.startMs(), attemptsByLease)) {
        continue;
      }
      interruptedAt.merge(lease.leaseId(), Math.max(p.startMs(), lease.grantedAt()), Math::min);
    }
  }

  private static boolean completedBefore(
      Granted lease, long at, Map<String, List<CompleteAttempt>> attemptsByLease) {
    return attemptsByLease.getOrDefault(lease.leaseId(), List.of()).stream()
        .anyMatch(c -> c.outcome() == Outcome.OK && c.endMs() < at);
  }

  /**
   * A lease its runner was told was interrupted (a 410 with reason {@code interrupted}) may have
   * been told long after the interrupt, and the producer's answer may not say it (an answer to a
   * retry is a duplicate's): the interrupt is the write of a notification the lease did not carry,
   * which the agent's next grant carries (it returned unread with the rest), so the hold ended no
   * earlier than the later of the lease's grant and the first attempt to publish such a
   * notification. That earliest moment is taken when it is earlier than what is known.
   */
  static void interruptedBeforeTheNextGrant(
      List<Published> published,
      Map<String, List<Granted>> grantsByAgent,
      Map<String, Long> interruptedAt) {
    Map<String, Long> firstAttempt = new HashMap<>();
    for (Published p : published) {
      firstAttempt.merge(p.key(), p.startMs(), Math::min);
    }
    for (List<Granted> list : grantsByAgent.values()) {
      for (int i = 0; i + 1 < list.size(); i++) {
        Granted lease = list.get(i);
        if (!interruptedAt.containsKey(lease.leaseId())) {
          continue;
        }
        long earliest =
            list.get(i + 1).keys().stream()
                .filter(k -> !lease.keys().contains(k) && firstAttempt.containsKey(k))
                .mapToLong(firstAttempt::get)
                .min()
                .orElse(Long.MAX_VALUE);
        if (earliest != Long.MAX_VALUE) {
          interruptedAt.merge(lease.leaseId(), Math.max(earliest, lease.grantedAt()), Math::min);
        }
      }
    }
  }
}
