package dev.rota.http.testing;

import dev.rota.cluster.agent.AgentChangeListener;
import dev.rota.core.model.AgentState;
import dev.rota.core.scheduling.AgentSchedule;
import dev.rota.core.tenant.AgentKeys;
import dev.rota.http.AgentDirectory;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A read model in memory for route tests: it hears every agent change (as the journal writes it)
 * and lists agents in the directory's orders, paging by offset. {@link #scopedTo} gives a test its
 * own agents only, since one cluster serves a whole test class.
 */
public final class InMemoryAgentDirectory implements AgentDirectory, AgentChangeListener {
  private static final Comparator<Instant> NULLS_FIRST =
      Comparator.nullsFirst(Comparator.naturalOrder());
  private static final Comparator<Instant> NULLS_LAST =
      Comparator.nullsLast(Comparator.naturalOrder());

  private static final Comparator<AgentSchedule> STALEST =
      Comparator.comparing(AgentSchedule::lastActivatedAt, NULLS_FIRST)
          .thenComparing(AgentSchedule::agentId);
  private static final Comparator<AgentSchedule> INBOX =
      Comparator.comparing(AgentSchedule::unread, Comparator.reverseOrder())
          .thenComparing(AgentSchedule::oldestUnreadAt, NULLS_LAST)
          .thenComparing(AgentSchedule::agentId);

  private final Map<String, AgentSchedule> rows = new ConcurrentHashMap<>();

  @Override
  public void changed(AgentState state, long seqNr) {
    if (state.registered()) {
      rows.put(state.agentId(), AgentSchedule.of(state));
    } else {
      rows.remove(state.agentId());
    }
  }

  @Override
  public AgentPage list(String tenant, Order order, int limit, String afterCursor) {
    return list(order, limit, afterCursor, "", tenant);
  }

  /** The same directory, listing only agents whose id starts with the prefix. */
  public AgentDirectory scopedTo(String prefix) {
    return (tenant, order, limit, after) -> list(order, limit, after, prefix, tenant);
  }

  private AgentPage list(Order order, int limit, String after, String prefix, String tenant) {
    int offset = offsetOf(after);
    List<String> ids =
        rows.values().stream()
            .filter(row -> AgentKeys.tenantOf(row.agentId()).equals(tenant))
            .filter(row -> AgentKeys.agentIdOf(row.agentId()).startsWith(prefix))
            .sorted(order == Order.STALEST ? STALEST : INBOX)
            .map(AgentSchedule::agentId)
            .toList();
    int end = Math.min(ids.size(), offset + limit);
    List<String> page = offset >= ids.size() ? List.of() : ids.subList(offset, end);
    return new AgentPage(page, end < ids.size() ? "o" + end : null);
  }

  private static int offsetOf(String cursor) {
    if (cursor == null) {
      return 0;
    }
    try {
      if (cursor.startsWith("o")) {
        return Integer.parseInt(cursor.substring(1));
      }
    } catch (NumberFormatException e) {
      // answered below
    }
    throw new InvalidCursorException("not an offset cursor");
  }
}
