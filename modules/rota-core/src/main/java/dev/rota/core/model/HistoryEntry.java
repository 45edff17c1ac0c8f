package dev.rota.core.model;

import java.time.Instant;
import java.util.Map;

/**
 * One line of an agent's recent history, as {@code GET /v1/agents/{id}/history} shows it.
 *
 * @param details the ids involved and short facts, e.g. {@code leaseId}, {@code action}
 */
public record HistoryEntry(String type, Instant at, Map<String, String> details) {
  public HistoryEntry {
    details = Map.copyOf(details);
  }
}
