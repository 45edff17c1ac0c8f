package dev.rota.http;

import dev.rota.core.model.AgentSummary;
import java.util.List;
import java.util.Map;

/**
 * The agents known to the cluster, in the orders the listing offers, a page at a time. A directory
 * that can describe an agent itself (the read model's row holds its whole configuration) says so in
 * {@link AgentPage#described}; the routes ask the entity only for the others, so a listing does not
 * wake (recover) every listed agent. Implementations may block (they are called on the blocking
 * dispatcher).
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
   * @param described the listed agents the directory describes itself, by id (as of its own lag)
   */
  record AgentPage(List<String> agentIds, String next, Map<String, AgentSummary> described) {
    public AgentPage {
      agentIds = List.copyOf(agentIds);
      described = Map.copyOf(described);
    }

    /** A page of ids only: every agent is shown as its entity sees it. */
    public AgentPage(List<String> agentIds, String next) {
      this(agentIds, next, Map.of());
    }
  }

  /**
   * The first {@code limit} agents of {@code tenant} in {@code order} after the cursor (from the
   * start when null), by their keys.
   *
   * @throws InvalidCursorException when the cursor did not come from this order's pages
   * @throws UnavailableException when the store behind the directory cannot answer
   */
  AgentPage list(String tenant, Order order, int limit, String afterCursor);

  /** The default tenant's page. */
  default AgentPage list(Order order, int limit, String afterCursor) {
    return list(dev.rota.core.tenant.Tenants.DEFAULT, order, limit, afterCursor);
  }

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
