package dev.rota.http.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.JsonNode;
import dev.rota.core.model.AgentConfig;
import dev.rota.core.model.AgentSummary;
import dev.rota.core.model.CallInfo;
import dev.rota.core.model.Lease;
import dev.rota.core.model.OpenCalls;
import dev.rota.core.tenant.AgentKeys;
import java.time.Instant;
import java.util.List;

/**
 * An agent as docs/api.md shows it. Built from the entity's state at the moment it answered, so the
 * status (e.g. snoozed) is the entity's view of "now".
 *
 * @param agentId the agent's id within its tenant
 * @param tenant the tenant the agent belongs to
 * @param status {@code idle}, {@code leased}, {@code snoozed} or {@code paused}
 * @param deadLetters how many notifications of this agent are dead-lettered
 * @param lease the lease a runner holds, or null
 * @param schedules the agent's schedules, each with its next unserved fire
 * @param scheduled the earliest unserved fire over all schedules, and whether it has come
 * @param newInput what a notification arriving during a turn does: {@code queue}, {@code steer},
 *     {@code interrupt} or {@code reject}
 * @param debounceMs how long a burst of notifications must pause before the agent is eligible
 * @param debounceMaxMs the most the oldest unread notification waits for a burst to end
 * @param debouncingUntil until when the agent waits for a burst to end; null when it does not
 * @param owes the calls the agent's turns deferred and it still owes an answer to
 * @param calls the calls the agent made that wait for replies and those it serves; shown by the
 *     agent's own view, left out of a listing's rows (null)
 */
public record AgentView(
    String agentId,
    String tenant,
    String name,
    List<String> capabilities,
    int priority,
    long minActivationIntervalSeconds,
    int maxInboxDepth,
    int maxAttempts,
    JsonNode metadata,
    String status,
    Inbox inbox,
    Instant lastActivatedAt,
    long activationCount,
    int deadLetters,
    LeaseView lease,
    List<ScheduleView> schedules,
    Scheduled scheduled,
    String newInput,
    long debounceMs,
    long debounceMaxMs,
    Instant debouncingUntil,
    List<CallInfo> owes,
    @JsonInclude(JsonInclude.Include.NON_NULL) Calls calls) {

  /** The agent's calls in progress; each list the oldest 100, the counts whole. */
  public record Calls(List<Made> made, int madeCount, List<Served> served, int servedCount) {
    static Calls of(OpenCalls calls) {
      if (calls == null) {
        return null;
      }
      return new Calls(
          calls.made().stream()
              .map(
                  c ->
                      new Made(
                          c.callId(), c.to(), c.group(), c.sentAt(), c.deadline(), c.answered()))
              .toList(),
          calls.madeCount(),
          calls.served().stream()
              .map(
                  c ->
                      new Served(
                          c.callId(),
                          new Party(c.from().tenant(), c.from().agentId()),
                          c.depth(),
                          c.receivedAt(),
                          c.inTurn()))
              .toList(),
          calls.servedCount());
    }
  }

  /**
   * A call the agent made, waiting for its reply: {@code answered} once its reply came and is held
   * until every call of its {@code group} (null when alone) has one.
   */
  public record Made(
      String callId, String to, String group, Instant sentAt, Instant deadline, boolean answered) {}

  /** A call the agent serves; {@code inTurn} while its running turn carries it. */
  public record Served(String callId, Party from, int depth, Instant receivedAt, boolean inTurn) {}

  /** A caller: an agent of a tenant, or ({@code agentId} null) a producer outside Rota. */
  public record Party(String tenant, String agentId) {}

  /**
   * One schedule as registered, with {@code nextFireAt}: its earliest fire no turn has served yet
   * (in the past while due), null when the cron never fires again.
   */
  public record ScheduleView(
      String name, String cron, String timezone, JsonNode payload, Instant nextFireAt) {}

  /** {@code nextFireAt} over all schedules (null without any); {@code due} once it has come. */
  public record Scheduled(Instant nextFireAt, boolean due) {}

  /** The unread part of the inbox. */
  public record Inbox(int unread, Instant oldestUnreadAt) {}

  /**
   * A held lease: who holds it and until when. Never its id, which is the runner's secret (a
   * producer reads this view; {@code /admin/runners} shows the id to admins).
   */
  public record LeaseView(String runnerId, String kind, Instant grantedAt, Instant expiresAt) {
    static LeaseView of(Lease lease) {
      return lease == null
          ? null
          : new LeaseView(
              lease.runnerId(), lease.kind().wireName(), lease.grantedAt(), lease.expiresAt());
    }
  }

  /** This view without {@code calls}, as a listing's rows show every agent. */
  public AgentView withoutCalls() {
    return new AgentView(
        agentId,
        tenant,
        name,
        capabilities,
        priority,
        minActivationIntervalSeconds,
        maxInboxDepth,
        maxAttempts,
        metadata,
        status,
        inbox,
        lastActivatedAt,
        activationCount,
        deadLetters,
        lease,
        schedules,
        scheduled,
        newInput,
        debounceMs,
        debounceMaxMs,
        debouncingUntil,
        owes,
        null);
  }

  public static AgentView of(AgentSummary agent, Instant now) {
    AgentConfig config = agent.config();
    return new AgentView(
        AgentKeys.agentIdOf(agent.agentId()),
        AgentKeys.tenantOf(agent.agentId()),
        config.name(),
        config.capabilities(),
        config.priority(),
        config.minActivationIntervalSeconds(),
        config.maxInboxDepth(),
        config.maxAttempts(),
        config.metadata(),
        agent.status(now),
        new Inbox(agent.unread(), agent.oldestUnreadAt()),
        agent.lastActivatedAt(),
        agent.activationCount(),
        agent.deadLetters(),
        LeaseView.of(agent.lease()),
        config.schedules().stream()
            .map(
                s ->
                    new ScheduleView(
                        s.name(),
                        s.cron(),
                        s.timezone(),
                        s.payload(),
                        agent.nextFires().get(s.name())))
            .toList(),
        new Scheduled(agent.nextFireAt(), agent.scheduleDue(now)),
        config.newInput().wireName(),
        config.debounceMs(),
        config.debounces() ? config.effectiveDebounceMaxMs() : 0,
        agent.isDebouncing(now) ? agent.debounceUntil() : null,
        agent.owes(),
        Calls.of(agent.openCalls()));
  }
}
