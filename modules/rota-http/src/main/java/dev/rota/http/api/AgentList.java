package dev.rota.http.api;

import java.util.List;

/**
 * A page of {@code GET /v1/agents}.
 *
 * @param next the cursor of the following page ({@code after=}), or null on the last page
 */
public record AgentList(List<AgentView> agents, String next) {}
