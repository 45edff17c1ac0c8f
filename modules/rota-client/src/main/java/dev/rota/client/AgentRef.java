package dev.rota.client;

/** An agent named across tenants: who made a call, or who answered it. */
public record AgentRef(String tenant, String agentId) {}
