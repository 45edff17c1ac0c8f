package dev.rota.faults.harness;

import dev.rota.faults.check.CallVerdict;
import dev.rota.faults.check.NewInputCounts;
import dev.rota.faults.check.Verdict;
import dev.rota.faults.check.Verdict.FaultWindow;
import java.util.List;

/** The suite's report: one Markdown table per fault kind, one row per run. */
public final class FaultTable {
  private FaultTable() {}

  public static String render(List<FaultRun.Result> results, long boundMs, long othersBoundMs) {
    StringBuilder out = new StringBuilder();
    for (FaultKind kind : FaultKind.values()) {
      List<FaultRun.Result> rows = results.stream().filter(r -> r.kind() == kind).toList();
      if (rows.isEmpty()) {
        continue;
      }
      out.append("\n### ").append(kind.label()).append("\n\n");
      out.append(
          "| run | node | acknowledged | completed | lost | undrained | stale accepted |"
              + " overlapping holds | ended early | duplicates | agents hit | max window (s) | the node's agents"
              + " | served again (s) | others' longest wait (s) | exit status | rejoin outage (s)"
              + " | load | note |\n");
      out.append("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
      for (FaultRun.Result r : rows) {
        Verdict v = r.verdict();
        FaultWindow window = mainWindow(r);
        out.append(
            String.format(
                "| %d | %d | %d | %d | %d | %d | %d | %d | %d | %d | %s | %s | %s | %s | %s | %s | %s"
                    + " | %s | %s |%n",
                r.run(),
                r.node(),
                v.acknowledged(),
                v.completed(),
                v.lost().size(),
                v.undrained().size(),
                v.staleAccepted().size(),
                v.overlappingHolds().size(),
                v.endedEarly().size(),
                v.duplicateCompletions().size() + v.duplicateAccepts().size(),
                window == null ? "-" : Integer.toString(window.agentsAffected()),
                window == null ? "-" : seconds(window.maxWindowMs()),
                window == null ? "-" : Integer.toString(window.hostedAgents()),
                servedAgain(r, window),
                window == null ? "-" : seconds(window.othersMaxWaitMs()),
                r.exitStatus().isEmpty() ? "-" : r.exitStatus(),
                rejoin(r),
                r.load(),
                r.note().isEmpty() ? "-" : r.note()));
      }
    }
    out.append(newInput(results));
    out.append(calls(results));
    out.append(
        String.format(
            "%nwindow: from the fault to an affected agent's first acknowledged publish. the"
                + " node's agents: those its shard region hosted just before the fault (every"
                + " agent when the database or two nodes are lost); served again: from the fault"
                + " until the last of them was first acknowledged again, held to %d s for node"
                + " faults. others' longest wait: the longest any other agent's notification waited"
                + " for its acknowledgement after the fault, held to %.1f s for node faults."
                + " rejoin outage: after the killed or frozen node was started again, from an"
                + " agent's first failed publish to its next acknowledged one (reported, not held)."
                + " load: the machine's 1-minute load average from when the nodes were up until the"
                + " producers stopped, lowest–highest.%n",
            boundMs / 1000, othersBoundMs / 1000.0));
    return out.toString();
  }

  /**
   * The runs with mixed new input during a turn: what the checks found of it, and what the
   * producers were answered and the runners told. Empty when no run had any.
   */
  static String newInput(List<FaultRun.Result> results) {
    List<FaultRun.Result> rows =
        results.stream().filter(r -> r.newInput() != null && r.newInput().any()).toList();
    if (rows.isEmpty()) {
      return "";
    }
    StringBuilder out = new StringBuilder("\n### new input during a turn\n\n");
    out.append(
        "| fault | run | acknowledged | completed once | lost | undrained | stale accepted |"
            + " overlapping holds | completed although interrupted | steered (told) |"
            + " interrupted (told) | rejected (keys, acknowledged later) | own newInput |\n");
    out.append("|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (FaultRun.Result r : rows) {
      Verdict v = r.verdict();
      NewInputCounts n = r.newInput();
      out.append(
          String.format(
              "| %s | %d | %d | %d | %d | %d | %d | %d | %d | %d (%d) | %d (%d) | %d (%d, %d) | %s |%n",
              r.kind().label(),
              r.run(),
              v.acknowledged(),
              v.completed() - v.duplicateCompletions().size(),
              v.lost().size(),
              v.undrained().size(),
              v.staleAccepted().size(),
              v.overlappingHolds().size(),
              v.interruptedCompleted().size(),
              n.steered(),
              n.steeredTold(),
              n.interrupted(),
              n.interruptsTold(),
              n.rejected(),
              n.rejectedKeys(),
              n.rejectedThenAcknowledged(),
              n.ownPolicy()));
    }
    return out.toString();
  }

  /**
   * The runs with the call workload: what the agents sent each other and what the call checks
   * found. Empty when no run had any.
   */
  static String calls(List<FaultRun.Result> results) {
    List<FaultRun.Result> rows = results.stream().filter(r -> r.calls() != null).toList();
    if (rows.isEmpty()) {
      return "";
    }
    StringBuilder out = new StringBuilder("\n### agents that work together\n\n");
    out.append(
        "| fault | run | sends | calls | replies by status | groups (delivered whole) |"
            + " refused completions' sends | not delivered | delivered twice |"
            + " from a refused completion | without a reply | replied twice | stray replies |"
            + " groups in part |\n");
    out.append("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (FaultRun.Result r : rows) {
      CallVerdict c = r.calls();
      out.append(
          String.format(
              "| %s | %d | %d | %d | %s | %d (%d) | %d | %d | %d | %d | %d | %d | %d | %d |%n",
              r.kind().label(),
              r.run(),
              c.sends(),
              c.calls(),
              c.replies(),
              c.groups(),
              c.groupsDelivered(),
              c.refusedSends(),
              c.undelivered().size(),
              c.duplicateDeliveries().size(),
              c.fromRefused().size(),
              c.missingReplies().size(),
              c.doubledReplies().size(),
              c.strayReplies().size(),
              c.brokenGroups().size()));
    }
    return out.toString();
  }

  /**
   * When the faulty node's agents were served again: after the fault, or, when two nodes were lost
   * (no one may be served until they return), after the nodes were started again.
   */
  private static String servedAgain(FaultRun.Result result, FaultWindow window) {
    if (window == null) {
      return "-";
    }
    if (result.kind() != FaultKind.TWO_NODES_LOST) {
      return seconds(window.hostedWindowMs());
    }
    return result.verdict().windows().stream()
        .filter(w -> w.kind().equals("restart"))
        .findFirst()
        .map(w -> seconds(w.maxWindowMs()) + " after the restart")
        .orElse("never");
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

  public static String seconds(long ms) {
    return ms == Long.MAX_VALUE ? "never" : String.format("%.1f", ms / 1000.0);
  }
}
