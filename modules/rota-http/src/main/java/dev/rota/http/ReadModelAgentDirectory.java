package dev.rota.http;

import dev.rota.cluster.readmodel.AgentListing;
import dev.rota.cluster.readmodel.AgentListing.Position;
import dev.rota.cluster.readmodel.ReadModelException;
import dev.rota.core.model.AgentSummary;
import dev.rota.core.model.Ids;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;

/**
 * The agent directory backed by the read model's listing ({@link AgentListing}, one {@code
 * agent_schedule} row per agent), which also describes each listed agent from its row, so the
 * listing asks no entity for it. What this adds is the wire side: the cursor, opaque (base64url)
 * and tied to its order, carries the sort key of the last row of a page, after which the next page
 * starts.
 */
public final class ReadModelAgentDirectory implements AgentDirectory {
  private final AgentListing listing;

  public ReadModelAgentDirectory(DataSource dataSource) {
    this.listing = new AgentListing(dataSource);
  }

  @Override
  public AgentPage list(String tenant, Order order, int limit, String afterCursor) {
    if (limit < 1) {
      throw new IllegalArgumentException("limit must be at least 1, not " + limit);
    }
    Position after = afterCursor == null ? null : Cursor.decode(order, afterCursor);
    List<AgentListing.Row> rows;
    try {
      rows = listing.page(tenant, listingOrder(order), after, limit + 1);
    } catch (ReadModelException e) {
      Throwable cause = e.getCause() == null ? e : e.getCause();
      throw new UnavailableException("cannot read agent_schedule: " + cause.getMessage(), cause);
    }
    boolean more = rows.size() > limit;
    List<AgentListing.Row> page = more ? rows.subList(0, limit) : rows;
    Map<String, AgentSummary> described = new HashMap<>();
    for (AgentListing.Row row : page) {
      row.summary().ifPresent(agent -> described.put(agent.agentId(), agent));
    }
    return new AgentPage(
        page.stream().map(row -> row.position().agentId()).toList(),
        more ? Cursor.encode(order, page.get(limit - 1).position()) : null,
        described);
  }

  private static AgentListing.Order listingOrder(Order order) {
    return order == Order.STALEST ? AgentListing.Order.STALEST : AgentListing.Order.INBOX;
  }

  /** A row's sort key as a cursor: the position after which the next page starts. */
  private static final class Cursor {
    private Cursor() {}

    static String encode(Order order, Position key) {
      String text =
          order == Order.STALEST
              ? "s\n" + text(key.lastActivatedAt()) + "\n" + key.agentId()
              : "i\n" + key.unread() + "\n" + text(key.oldestUnreadAt()) + "\n" + key.agentId();
      return Base64.getUrlEncoder()
          .withoutPadding()
          .encodeToString(text.getBytes(StandardCharsets.UTF_8));
    }

    static Position decode(Order order, String cursor) {
      try {
        String[] parts =
            new String(Base64.getUrlDecoder().decode(cursor), StandardCharsets.UTF_8)
                .split("\n", -1);
        if (order == Order.STALEST && parts.length == 3 && parts[0].equals("s")) {
          return new Position(agentId(parts[2]), 0, null, instantOf(parts[1]));
        }
        if (order == Order.INBOX && parts.length == 4 && parts[0].equals("i")) {
          int unread = Integer.parseInt(parts[1]);
          return new Position(agentId(parts[3]), unread, instantOf(parts[2]), null);
        }
      } catch (IllegalArgumentException | DateTimeParseException e) {
        // answered below: any malformed cursor gets the same message
      }
      throw new InvalidCursorException("not a cursor of the " + order.wireName() + " order");
    }

    private static String agentId(String value) {
      if (!Ids.isValidAgentKey(value)) {
        throw new IllegalArgumentException("bad agent id");
      }
      return value;
    }

    private static String text(Instant instant) {
      return instant == null ? "" : instant.toString();
    }

    private static Instant instantOf(String text) {
      return text.isEmpty() ? null : Instant.parse(text);
    }
  }
}
