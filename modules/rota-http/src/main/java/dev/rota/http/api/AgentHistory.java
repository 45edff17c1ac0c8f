package dev.rota.http.api;

import dev.rota.core.model.HistoryEntry;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The answer of {@code GET /v1/agents/{agentId}/history}: recent events, newest first, each {@code
 * {"type", "at", ...details}} with the details (ids involved, short facts) flattened in.
 */
public record AgentHistory(List<Map<String, Object>> events) {

  public static AgentHistory of(List<HistoryEntry> newestFirst, int limit) {
    return new AgentHistory(newestFirst.stream().limit(limit).map(AgentHistory::event).toList());
  }

  private static Map<String, Object> event(HistoryEntry entry) {
    Map<String, Object> event = new LinkedHashMap<>();
    event.put("type", entry.type());
    event.put("at", entry.at());
    // Sorted, so the same event always reads the same; type and at cannot be overwritten.
    new TreeMap<>(entry.details()).forEach(event::putIfAbsent);
    return event;
  }
}
