package dev.rota.faults.check;

import dev.rota.faults.history.Event.CompleteAttempt;
import dev.rota.faults.history.Event.Granted;
import dev.rota.faults.history.Event.Outcome;
import dev.rota.faults.history.Event.Published;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The part of {@link HistoryChecker} that reads new input during a turn from the producers'
 * answers: which lease a steered notification joined, when an interrupted lease's hold ended, and
 * which notifications may have joined a lease without any answer saying so.
 */
final class NewInputAnswers {
  private NewInputAnswers() {}

  /**
   * What the producers' answers say about the turn running when they were accepted: a notification
   * answered {@code steered} joined the agent's lease granted last before the publish was answered.
   * One answered {@code interrupted} ended the lease granted last before the answer that does not
   * carry the interrupting notification: the next grant may come before the answer, and it carries
   * the interrupting notification (stored by that very write), which no earlier grant can. A runner
   * may never hear of a steered notification (it completes first) nor of its interrupt; the answer
   * is the server's word. An interrupt's hold ends no earlier than the later of the publish's
   * sending and the lease's grant; that earliest moment is taken.
   */
  static void attribute(
      List<Published> published,
      Map<String, List<Granted>> grantsByAgent,
      Map<String, List<String>> steeredKeys,
      Map<String, Long> interruptedAt) {
    for (Published p : published) {
      if (p.outcome() != Outcome.OK || p.detail() == null) {
        continue;
      }
      boolean steered = p.detail().contains(Published.STEERED);
      boolean interrupted = p.detail().contains(Published.INTERRUPTED);
      if (!steered && !interrupted) {
        continue;
      }
      Granted lease = null;
      for (Granted g : grantsByAgent.getOrDefault(p.agentId(), List.of())) {
        if (g.grantedAt() <= p.endMs()
            && (steered || !g.keys().contains(p.key()))
            && (lease == null || g.grantedAt() > lease.grantedAt())) {
          lease = g;
        }
      }
      if (lease == null) {
        continue;
      }
      if (steered) {
        List<String> keys = steeredKeys.computeIfAbsent(lease.leaseId(), l -> new ArrayList<>());
        if (!keys.contains(p.key())) {
          keys.add(p.key());
        }
      } else {
        interruptedAt.merge(lease.leaseId(), Math.max(p.startMs(), lease.grantedAt()), Math::min);
      }
    }
  }

  /**
   * Notifications acknowledged only as a duplicate ({@code 202 duplicate}) of an earlier attempt of
   * theirs that got no answer: that attempt stored the notification at a moment the history does
   * not show, and it may have been steered into a lease running then with no answer saying so (the
   * duplicate's answer never says {@code steered}). Each is mapped to a lease of its agent whose
   * completion was accepted and that was held at some point between the key's first attempt and its
   * acknowledgement (from its grant to its accepted completion's answer), the latest such.
   */
  static Map<String, String> steeredUnanswered(
      List<Published> published,
      Map<String, List<Granted>> grantsByAgent,
      Map<String, List<CompleteAttempt>> attemptsByLease) {
    Map<String, Long> firstAttempt = new HashMap<>();
    Map<String, Boolean> unanswered = new HashMap<>();
    for (Published p : published) {
      firstAttempt.merge(p.key(), p.startMs(), Math::min);
      if (p.outcome() == Outcome.FAILED) {
        unanswered.put(p.key(), true);
      }
    }
    Map<String, String> leaseOfKey = new TreeMap<>();
    for (Published p : published) {
      if (p.outcome() != Outcome.OK
          || p.detail() == null
          || !p.detail().contains(Published.DUPLICATE)
          || !unanswered.containsKey(p.key())) {
        continue;
      }
      long from = firstAttempt.get(p.key());
      Granted latest = null;
      for (Granted g : grantsByAgent.getOrDefault(p.agentId(), List.of())) {
        long completedAt =
            attemptsByLease.getOrDefault(g.leaseId(), List.of()).stream()
                .filter(c -> c.outcome() == Outcome.OK)
                .mapToLong(CompleteAttempt::endMs)
                .max()
                .orElse(Long.MIN_VALUE);
        if (g.grantedAt() <= p.endMs()
            && completedAt >= from
            && (latest == null || g.grantedAt() > latest.grantedAt())) {
          latest = g;
        }
      }
      if (latest != null) {
        leaseOfKey.put(p.key(), latest.leaseId());
      }
    }
    return leaseOfKey;
  }
}
