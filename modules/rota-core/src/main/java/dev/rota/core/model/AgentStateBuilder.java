package dev.rota.core.model;

import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * One transition's changes to an {@link AgentState}: a mutable copy whose fields a transition sets
 * before {@link #build()}. A fresh one is an unregistered agent with defaults.
 */
final class AgentStateBuilder {
  final String agentId;
  boolean registered;
  AgentConfig config;
  List<Notification> inbox = List.of();
  List<DeadLetter> deadLetters = List.of();
  Lease lease;
  Instant lastActivatedAt;
  long activationCount;
  Instant snoozedUntil;
  boolean paused;
  long fencingCounter;
  DedupeKeys dedupe = DedupeKeys.empty();
  List<HistoryEntry> history = List.of();
  Map<String, Instant> nextFires = Map.of();
  int scheduleAttempts;
  CallBook calls = CallBook.empty();

  AgentStateBuilder(String agentId) {
    this.agentId = agentId;
    this.config = AgentConfig.defaults(agentId);
  }

  /** A copy of every field of {@code s}. */
  AgentStateBuilder(AgentState s) {
    this.agentId = s.agentId();
    this.registered = s.registered();
    this.config = s.config();
    this.inbox = s.inbox();
    this.deadLetters = s.deadLetters();
    this.lease = s.lease();
    this.lastActivatedAt = s.lastActivatedAt();
    this.activationCount = s.activationCount();
    this.snoozedUntil = s.snoozedUntil();
    this.paused = s.paused();
    this.fencingCounter = s.fencingCounter();
    this.dedupe = s.dedupe();
    this.history = s.history();
    this.nextFires = s.nextFires();
    this.scheduleAttempts = s.scheduleAttempts();
    this.calls = s.calls();
  }

  AgentState build() {
    return new AgentState(
        agentId,
        registered,
        config,
        inbox,
        deadLetters,
        lease,
        lastActivatedAt,
        activationCount,
        snoozedUntil,
        paused,
        fencingCounter,
        dedupe,
        history,
        nextFires,
        scheduleAttempts,
        calls);
  }
}
