package dev.rota.faults.harness;

import dev.rota.faults.check.Verdict;
import dev.rota.faults.history.Event.Outcome;
import dev.rota.faults.history.Event.Published;
import dev.rota.faults.history.History;
import java.util.Map;
import java.util.TreeMap;

/**
 * What a {@link FaultRun} notes beside its verdict ({@link FaultRun.Result#note}), read from the
 * history: what an isolated or surviving node answered the stray producer, and how long after the
 * nodes were started again every agent was served.
 */
final class RunNotes {
  private RunNotes() {}

  /** How long after the nodes were started again every agent was served. */
  static String back(Verdict verdict) {
    return verdict.windows().stream()
        .filter(w -> w.kind().equals("restart"))
        .findFirst()
        .map(
            w ->
                "every agent served again "
                    + FaultTable.seconds(w.maxWindowMs())
                    + " s after the nodes were started again")
        .orElse("not started again");
  }

  /**
   * What a node answered the stray producer since {@code since}: how many it acknowledged (and when
   * the last), then the other outcomes by status or failure, e.g. {@code 503 ×12, ConnectException
   * ×180}.
   */
  static String answers(History history, int node, long since) {
    int acknowledged = 0;
    long lastAcknowledged = -1;
    Map<String, Integer> others = new TreeMap<>();
    for (var event : history.events()) {
      if (event instanceof Published p
          && p.key().startsWith("stray-")
          && p.node() == node
          && p.startMs() >= since) {
        if (p.outcome() == Outcome.OK) {
          acknowledged++;
          lastAcknowledged = Math.max(lastAcknowledged, p.endMs() - since);
        } else {
          others.merge(p.detail(), 1, Integer::sum);
        }
      }
    }
    StringBuilder out = new StringBuilder().append(acknowledged).append(" acknowledged");
    if (lastAcknowledged >= 0) {
      out.append(String.format(" (the last %.1f s after the fault)", lastAcknowledged / 1000.0));
    }
    others.forEach((detail, count) -> out.append(", ").append(detail).append(" ×").append(count));
    return out.toString();
  }
}
