package dev.rota.client;

import java.util.List;

/**
 * Which events to follow: all ({@link #all()}), or only one agent's and/or some types.
 *
 * @param since resume after this event id (sent as {@code Last-Event-ID}); null for "from now"
 */
public record EventQuery(String agentId, List<String> types, String since) {

  public static EventQuery all() {
    return new EventQuery(null, List.of(), null);
  }

  public EventQuery agentId(String agentId) {
    return new EventQuery(agentId, types, since);
  }

  public EventQuery types(String... types) {
    return new EventQuery(agentId, List.of(types), since);
  }

  public EventQuery since(String eventId) {
    return new EventQuery(agentId, types, eventId);
  }
}
