package dev.rota.client;

import java.util.List;

/**
 * One page of {@code GET /v1/agents}.
 *
 * @param next the cursor of the next page ({@link AgentQuery#after}), null on the last page
 */
public record AgentPage(List<Agent> agents, String next) {}
