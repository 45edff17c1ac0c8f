package dev.rota.http.api;

import java.time.Instant;

/** The answer to a redrive: the notification is back in its agent's inbox with fresh attempts. */
public record Redriven(String id, String agentId, String tenant, Instant redrivenAt) {}
