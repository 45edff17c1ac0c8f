package dev.rota.http;

import java.util.List;

/**
 * The agents known to the cluster, in the orders the listing offers, a page at a time. The routes
 * fetch each listed agent's current view from its entity, so a directory only needs ids and order.
 * Implementations may block (they are called on the blocking dispatcher).
 */
public interface AgentDirectory {

  /** The orders of {@code GET /v1/agents?order=}. */
  enum Order {
    /** Never activated first, then the oldest {@code lastActivatedAt}; ties by agent id. */
    STALEST,
    /** Most unread first, then the oldest unread notification; ties by agent id. */
    INBOX;

    public String wireName() {
      return name().toLowerCase(java.util.Locale.ROOT);
    }
  }

  /**
   * One page.
   *
   * @param agentIds in order
   * @param next the cursor for the page after this one, or null when this is the last
   */
  record AgentPage(List<String> agentIds, String next) {
    public AgentPage {
      agentIds = List.copyOf(agentIds);
    }
  }

  /**
   * The first {@code limit} agents in {@code order} after the cursor (from the start when null).
   *
   * @throws InvalidCursorException when the cursor did not come from this order's pages
   * @throws UnavailableException when the store behind the directory cannot answer
   */
  AgentPage list(Order order, int limit, String afterCursor);

  /** A cursor that this directory did not hand out for this order. */
  final class InvalidCursorException extends RuntimeException {
    public InvalidCursorException(String message) {
      super(message);
    }
  }

  /** The directory's store is not reachable or not ready (e.g. not migrated yet). */
  final class UnavailableException extends RuntimeException {
    public UnavailableException(String message, Throwable cause) {
      super(message, cause);
    }
  }
}
