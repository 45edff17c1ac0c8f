package dev.rota.core.model;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** The rules of an agent's history: newest first, capped, and what a retry reads from it. */
final class AgentHistory {
  static final String LEASE_INTERRUPTED = "lease.interrupted";

  private AgentHistory() {}

  /** Whether the history (newest first, capped) says lease {@code leaseId} was interrupted. */
  static boolean interrupted(List<HistoryEntry> history, String leaseId) {
    for (HistoryEntry entry : history) {
      if (entry.type().equals(LEASE_INTERRUPTED)
          && leaseId.equals(entry.details().get("leaseId"))) {
        return true;
      }
    }
    return false;
  }

  /** {@code entry} before {@code history}, keeping at most {@link AgentState#HISTORY_LIMIT}. */
  static List<HistoryEntry> recorded(List<HistoryEntry> history, HistoryEntry entry) {
    List<HistoryEntry> newHistory = new ArrayList<>(AgentState.HISTORY_LIMIT);
    newHistory.add(entry);
    for (int i = 0; i < history.size() && newHistory.size() < AgentState.HISTORY_LIMIT; i++) {
      newHistory.add(history.get(i));
    }
    return newHistory;
  }

  /**
   * The runner whose activation last ended, if it ended with a retry (failed with action retry, or
   * its lease expired) after {@code since}. The history names the runner of each failed attempt.
   */
  static Optional<String> runnerToAvoid(List<HistoryEntry> history, Instant since) {
    for (HistoryEntry entry : history) {
      boolean ended =
          entry.type().equals("activation.completed")
              || entry.type().equals("activation.failed")
              || entry.type().equals("lease.expired")
              || entry.type().equals(LEASE_INTERRUPTED);
      if (!ended) {
        continue;
      }
      // An interrupted turn did not fail: no runner to avoid.
      if (entry.type().equals("activation.completed")
          || entry.type().equals(LEASE_INTERRUPTED)
          || !FailureAction.RETRY.wireName().equals(entry.details().get("action"))
          || !entry.at().isAfter(since)) {
        return Optional.empty();
      }
      return Optional.ofNullable(entry.details().get("runnerId"));
    }
    return Optional.empty();
  }

  /** What the history keeps of a grant. */
  static Map<String, String> grantDetails(Lease l) {
    Map<String, String> details = new LinkedHashMap<>();
    details.put("leaseId", l.leaseId());
    details.put("runnerId", l.runnerId());
    details.put("kind", l.kind().wireName());
    details.put("notifications", String.valueOf(l.notificationIds().size()));
    if (l.schedule() != null) {
      details.put("schedule", l.schedule().name());
      details.put("firedAt", l.schedule().firedAt().toString());
    }
    return details;
  }

  /** {@code text} cut to {@code max} characters, an ellipsis marking the cut. */
  static String abbreviated(String text, int max) {
    return text.length() <= max ? text : text.substring(0, max - 1) + "…";
  }
}
