package dev.rota.faults;

import dev.rota.faults.check.CallChecker;
import dev.rota.faults.check.CallVerdict;
import dev.rota.faults.check.HistoryChecker;
import dev.rota.faults.check.NewInputCounts;
import dev.rota.faults.check.Verdict;
import dev.rota.faults.history.History;
import java.nio.file.Path;

/**
 * Checks saved histories offline: {@code CheckHistory <history.jsonl>...} prints each file's
 * verdict (counts, violations, the window of every fault) and exits 1 if any is unsafe.
 */
public final class CheckHistory {
  private CheckHistory() {}

  public static void main(String[] args) {
    boolean safe = true;
    for (String arg : args) {
      java.util.List<dev.rota.faults.history.Event> events = History.read(Path.of(arg));
      Verdict verdict = HistoryChecker.check(events);
      System.out.printf(
          "%s: acknowledged %d, completed %d, lost %d, undrained %d, stale accepted %d,"
              + " overlapping holds %d, ended early %d, duplicate completions %d, duplicate"
              + " accepts %d%n",
          arg,
          verdict.acknowledged(),
          verdict.completed(),
          verdict.lost().size(),
          verdict.undrained().size(),
          verdict.staleAccepted().size(),
          verdict.overlappingHolds().size(),
          verdict.endedEarly().size(),
          verdict.duplicateCompletions().size(),
          verdict.duplicateAccepts().size());
      NewInputCounts newInput = NewInputCounts.of(events);
      if (newInput.any()) {
        System.out.printf(
            "  new input: completions accepted from an interrupted lease %d; %s%n",
            verdict.interruptedCompleted().size(), newInput);
      }
      for (Verdict.FaultWindow w : verdict.windows()) {
        System.out.printf(
            "  %s node %d: %d agents hit, window %s ms (worst %s), outage %s ms, %d never served"
                + " again, %d served then failing later; the node's %d agents served again after"
                + " %s ms (worst %s), the others' longest wait %s ms (worst %s)%n",
            w.kind(),
            w.node(),
            w.agentsAffected(),
            w.maxWindowMs() == Long.MAX_VALUE ? "never" : Long.toString(w.maxWindowMs()),
            w.worstAgent(),
            w.maxOutageMs() == Long.MAX_VALUE ? "never" : Long.toString(w.maxOutageMs()),
            w.neverServedAgain(),
            w.laterFailures(),
            w.hostedAgents(),
            ms(w.hostedWindowMs()),
            w.worstHostedAgent(),
            ms(w.othersMaxWaitMs()),
            w.worstOtherAgent());
      }
      verdict.violations().stream().limit(20).forEach(v -> System.out.println("  " + v));
      safe &= verdict.safe();
      CallVerdict calls = CallChecker.check(events);
      if (calls.any()) {
        System.out.printf(
            "  calls: sends %d, calls %d, replies %s, groups %d (delivered whole %d)%n",
            calls.sends(), calls.calls(), calls.replies(), calls.groups(), calls.groupsDelivered());
        calls.violations().stream().limit(20).forEach(v -> System.out.println("  " + v));
        safe &= calls.safe();
      }
    }
    System.exit(safe ? 0 : 1);
  }

  private static String ms(long ms) {
    return ms == Long.MAX_VALUE ? "never" : Long.toString(ms);
  }
}
