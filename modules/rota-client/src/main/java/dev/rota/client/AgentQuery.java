package dev.rota.client;

/**
 * Which page of agents to list: {@code order} {@code stalest} (default) or {@code inbox}, up to
 * {@code limit} agents after the cursor {@code after}.
 *
 * <pre>{@code
 * AgentPage page = client.listAgents(AgentQuery.inbox().limit(20));
 * }</pre>
 */
public record AgentQuery(String order, Integer limit, String after) {

  /** The stalest agents first. */
  public static AgentQuery stalest() {
    return new AgentQuery("stalest", null, null);
  }

  /** The agents with most unread first. */
  public static AgentQuery inbox() {
    return new AgentQuery("inbox", null, null);
  }

  public AgentQuery limit(int limit) {
    return new AgentQuery(order, limit, after);
  }

  public AgentQuery after(String cursor) {
    return new AgentQuery(order, limit, cursor);
  }
}
