package dev.rota.faults.harness;

import dev.rota.faults.check.Verdict;
import dev.rota.faults.check.Verdict.FaultWindow;
import java.util.List;

/** The suite's report: one Markdown table per fault kind, one row per run. */
public final class FaultTable {
  private FaultTable() {}

  public static String render(List<FaultRun.Result> results, long boundMs) {
    StringBuilder out = new StringBuilder();
    for (FaultKind kind : FaultKind.values()) {
      List<FaultRun.Result> rows = results.stream().filter(r -> r.kind() == kind).toList();
      if (rows.isEmpty()) {
        continue;
      }
      out.append("\n### ").append(kind.label()).append("\n\n");
      out.append(
          "| run | node | acknowledged | completed | lost | undrained | stale accepted |"
              + " overlapping holds | duplicates | agents hit | max window (s) | exit status |"
              + " rejoin outage (s) |\n");
      out.append("|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
      for (FaultRun.Result r : rows) {
        Verdict v = r.verdict();
        FaultWindow window = mainWindow(r);
        out.append(
            String.format(
                "| %d | %d | %d | %d | %d | %d | %d | %d | %d | %s | %s | %s | %s |%n",
                r.run(),
                r.node(),
                v.acknowledged(),
                v.completed(),
                v.lost().size(),
                v.undrained().size(),
                v.staleAccepted().size(),
                v.overlappingHolds().size(),
                v.duplicateCompletions().size() + v.duplicateAccepts().size(),
                window == null ? "-" : Integer.toString(window.agentsAffected()),
                window == null ? "-" : seconds(window.maxWindowMs()),
                r.exitStatus().isEmpty() ? "-" : r.exitStatus(),
                rejoin(r)));
      }
    }
    out.append(
        String.format(
            "%nwindow: from the fault to an affected agent's first acknowledged publish; kill-9"
                + " and sigstop are held to %d s. rejoin outage: after the killed or frozen node"
                + " was started again, from an agent's first failed publish to its next"
                + " acknowledged one (reported, not held).%n",
            boundMs / 1000));
    return out.toString();
  }

  /**
   * The window of the fault itself: the first injected fault of the run (for a rolling restart, the
   * worst of its three SIGTERMs).
   */
  public static FaultWindow mainWindow(FaultRun.Result result) {
    List<FaultWindow> own =
        result.verdict().windows().stream().filter(w -> !w.kind().equals("restart")).toList();
    return own.stream()
        .max(java.util.Comparator.comparingLong(FaultWindow::maxWindowMs))
        .orElse(null);
  }

  /**
   * The worst outage after a killed or frozen node was started again: from an agent's first failed
   * publish to its next acknowledged one (the node takes a while to start before it rejoins).
   */
  private static String rejoin(FaultRun.Result result) {
    return result.verdict().windows().stream()
        .filter(w -> w.kind().equals("restart"))
        .mapToLong(FaultWindow::maxOutageMs)
        .max()
        .stream()
        .mapToObj(FaultTable::seconds)
        .findFirst()
        .orElse("-");
  }

  static String seconds(long ms) {
    return ms == Long.MAX_VALUE ? "never" : String.format("%.1f", ms / 1000.0);
  }
}
