package dev.rota.http.api;

import dev.rota.core.model.HistoryEntry;
import dev.rota.core.model.Ids;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The answer of {@code GET /v1/agents/{agentId}/history}: recent events, newest first, each {@code
 * {"type", "at", ...details}} with the details (ids involved, short facts) flattened in. A producer
 * may read it, so a lease is named by its {@code fencingToken}, never by its id: the id is its
 * runner's secret.
 */
public record AgentHistory(List<Map<String, Object>> events) {

  public static AgentHistory of(List<HistoryEntry> newestFirst, int limit) {
    return new AgentHistory(newestFirst.stream().limit(limit).map(AgentHistory::event).toList());
  }

  private static Map<String, Object> event(HistoryEntry entry) {
    Map<String, Object> event = new LinkedHashMap<>();
    event.put("type", entry.type());
    event.put("at", entry.at());
    Map<String, String> details = new TreeMap<>(entry.details());
    String leaseId = details.remove("leaseId");
    if (leaseId != null) {
      Ids.fencingTokenOf(leaseId)
          .ifPresent(token -> details.put("fencingToken", String.valueOf(token)));
    }
    // Sorted, so the same event always reads the same; type and at cannot be overwritten.
    details.forEach(event::putIfAbsent);
    return event;
  }
}
