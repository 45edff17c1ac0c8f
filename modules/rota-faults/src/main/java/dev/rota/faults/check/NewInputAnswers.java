package dev.rota.faults.check;

import dev.rota.faults.history.Event.Granted;
import dev.rota.faults.history.Event.Outcome;
import dev.rota.faults.history.Event.Published;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The part of {@link HistoryChecker} that reads new input during a turn from the producers'
 * answers: which lease a steered notification joined, and when an interrupted lease's hold ended.
 */
final class NewInputAnswers {
  private NewInputAnswers() {}

  /**
   * What the producers' answers say about the turn running when they were accepted: a notification
   * answered {@code steered} joined, and one answered {@code interrupted} ended, the agent's lease
   * granted last before the publish was answered (for an interrupt: before it was sent, since the
   * next grant may come before the answer). A runner may never hear of a steered notification (it
   * completes first) nor of its interrupt; the answer is the server's word. An interrupt's hold
   * ends no later than the publish was sent.
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
      long by = interrupted ? p.startMs() : p.endMs();
      for (Granted g : grantsByAgent.getOrDefault(p.agentId(), List.of())) {
        if (g.grantedAt() <= by && (lease == null || g.grantedAt() > lease.grantedAt())) {
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
        interruptedAt.merge(lease.leaseId(), p.startMs(), Math::min);
      }
    }
  }
}
