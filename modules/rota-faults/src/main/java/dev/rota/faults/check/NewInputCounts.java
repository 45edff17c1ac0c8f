package dev.rota.faults.check;

import dev.rota.faults.history.Event;
import dev.rota.faults.history.Event.Interrupted;
import dev.rota.faults.history.Event.Outcome;
import dev.rota.faults.history.Event.Published;
import dev.rota.faults.history.Event.Steered;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * What new input during a turn did in a history, counted (the checks are {@link HistoryChecker}'s):
 * the producers' answers and what the runners were told.
 *
 * @param ownPolicy acknowledged notifications that carried their own {@code newInput}, by policy
 * @param steered publishes answered {@code steered}: joined the turn running then
 * @param steeredTold steered keys a runner was given (input poll or heartbeat answer)
 * @param interrupted publishes answered {@code interrupted}: ended the turn running then
 * @param interruptsTold leases whose runner learned of their interrupt (input poll or a 410)
 * @param rejected publishes answered 409 {@code turn_in_progress}
 * @param rejectedKeys keys rejected at least once
 * @param rejectedThenAcknowledged of those, keys acknowledged when sent again
 */
public record NewInputCounts(
    Map<String, Integer> ownPolicy,
    int steered,
    int steeredTold,
    int interrupted,
    int interruptsTold,
    int rejected,
    int rejectedKeys,
    int rejectedThenAcknowledged) {

  public static NewInputCounts of(List<Event> events) {
    Map<String, Integer> own = new TreeMap<>();
    int steered = 0;
    int interrupted = 0;
    int rejected = 0;
    Set<String> rejectedKeys = new HashSet<>();
    Set<String> acknowledgedKeys = new HashSet<>();
    Set<String> steeredTold = new HashSet<>();
    Set<String> interruptsTold = new HashSet<>();
    for (Event event : events) {
      if (event instanceof Published p) {
        String detail = p.detail() == null ? "" : p.detail();
        if (p.outcome() == Outcome.REJECTED) {
          rejected++;
          rejectedKeys.add(p.key());
        } else if (p.outcome() == Outcome.OK) {
          acknowledgedKeys.add(p.key());
          steered += detail.contains(Published.STEERED) ? 1 : 0;
          interrupted += detail.contains(Published.INTERRUPTED) ? 1 : 0;
          int at = detail.indexOf(Published.NEW_INPUT);
          if (at >= 0) {
            String policy = detail.substring(at + Published.NEW_INPUT.length()).split(" ")[0];
            own.merge(policy, 1, Integer::sum);
          }
        }
      } else if (event instanceof Steered s) {
        steeredTold.addAll(s.keys());
      } else if (event instanceof Interrupted i) {
        interruptsTold.add(i.leaseId());
      }
    }
    int again = (int) rejectedKeys.stream().filter(acknowledgedKeys::contains).count();
    return new NewInputCounts(
        own,
        steered,
        steeredTold.size(),
        interrupted,
        interruptsTold.size(),
        rejected,
        rejectedKeys.size(),
        again);
  }

  /** Whether new input did anything at all (a run with mixed policies). */
  public boolean any() {
    return !ownPolicy.isEmpty() || steered + interrupted + rejected + steeredTold > 0;
  }
}
