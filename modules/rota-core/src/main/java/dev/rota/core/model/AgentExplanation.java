package dev.rota.core.model;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Why an agent is or is not being picked now (GET /v1/agents/{agentId}/explain): every reason that
 * keeps it out of the assignment rule, each with when it ends when time alone ends it. Pure, so
 * each reason is tested without a cluster.
 */
public final class AgentExplanation {

  /**
   * One reason the agent is not picked; {@code replies}, for {@code awaiting_replies}, the group
   * and how many of its calls have their reply.
   */
  public record Block(String reason, Instant until, String detail, CallBook.GroupProgress replies) {
    public Block(String reason, Instant until, String detail) {
      this(reason, until, detail, null);
    }
  }

  /**
   * The agent's tenant's caps as its gate counts them now: {@code held} leases against {@code
   * maxConcurrent}, {@code lastMinute} grants against {@code maxPerMinute}, and when the rate cap
   * lets a grant through again ({@code rateUntil}, null when it does now). Caps are null when
   * unset.
   */
  public record TenantLoad(
      String tenant,
      int held,
      Integer maxConcurrent,
      int lastMinute,
      Integer maxPerMinute,
      Instant rateUntil) {}

  private AgentExplanation() {}

  /**
   * {@link #blockedBy(AgentSummary, Instant, boolean, boolean, TenantLoad)} of an uncapped tenant.
   */
  public static List<Block> blockedBy(
      AgentSummary agent, Instant now, boolean systemPaused, boolean aRunnerFits) {
    return blockedBy(agent, now, systemPaused, aRunnerFits, null);
  }

  /**
   * @param agent the agent as it answered; null when it is not registered
   * @param systemPaused whether the whole system is paused
   * @param aRunnerFits whether some runner that asked for work lately (or runs in a pool) offers
   *     every capability the agent requires
   * @param tenant its tenant's caps as its gate counts them; null when the tenant is not capped (or
   *     its gate did not answer)
   */
  public static List<Block> blockedBy(
      AgentSummary agent,
      Instant now,
      boolean systemPaused,
      boolean aRunnerFits,
      TenantLoad tenant) {
    List<Block> blocks = new ArrayList<>();
    if (agent == null || !agent.registered()) {
      blocks.add(new Block("not_registered", null, "no agent with this id is registered"));
      return blocks;
    }
    if (systemPaused) {
      blocks.add(
          new Block("system_paused", null, "claims are answered paused until an admin resumes"));
    }
    if (agent.paused()) {
      blocks.add(new Block("paused", null, "this agent is paused until it is resumed"));
    }
    Lease lease = agent.lease();
    if (lease != null) {
      blocks.add(
          new Block(
              "leased",
              lease.expiresAt(),
              // A producer reads this: the lease by its fencing token, never its id.
              "runner "
                  + lease.runnerId()
                  + " holds the lease (fencing token "
                  + lease.fencingToken()
                  + ")"));
    }
    if (agent.snoozedUntil() != null && agent.snoozedUntil().isAfter(now)) {
      blocks.add(new Block("snoozed", agent.snoozedUntil(), "a runner snoozed its last turn"));
    }
    if (agent.unread() > 0 && agent.isDebouncing(now)) {
      blocks.add(
          new Block(
              "debouncing",
              agent.debounceUntil(),
              "waits "
                  + agent.config().debounceMs()
                  + " ms without a newer notification (at most "
                  + agent.config().effectiveDebounceMaxMs()
                  + " ms after the oldest unread) so that a burst becomes one turn"));
    }
    if (agent.unread() == 0) {
      // The caller serves other notifications meanwhile: the groups matter only when none is left.
      for (CallBook.GroupProgress group : agent.awaitingReplies()) {
        blocks.add(
            new Block(
                "awaiting_replies",
                null,
                "holds the replies of call group '"
                    + group.group()
                    + "' until all have come: "
                    + group.answered()
                    + " of "
                    + group.of(),
                group));
      }
      if (!agent.owes().isEmpty() && agent.waitingCalls() > 0) {
        blocks.add(
            new Block(
                "awaiting_replies",
                null,
                "owes "
                    + agent.owes().size()
                    + " deferred call(s) and waits for "
                    + agent.waitingCalls()
                    + " reply(ies) to the calls it made; a reply makes it eligible"));
      }
    }
    Instant rested = restedAt(agent);
    // A due schedule is an override: the minimum interval does not hold it back.
    if (agent.unread() == 0 && rested != null && rested.isAfter(now) && !agent.scheduleDue(now)) {
      blocks.add(
          new Block(
              "min_interval",
              rested,
              "activated at "
                  + agent.lastActivatedAt()
                  + " with a minimum interval of "
                  + agent.config().minActivationIntervalSeconds()
                  + " s; a notification makes it eligible before then"));
    }
    blocks.addAll(tenantBlocks(tenant, now));
    if (!aRunnerFits) {
      blocks.add(
          new Block(
              "no_runner_with_capabilities",
              null,
              agent.config().capabilities().isEmpty()
                  ? "no runner has asked for work lately"
                  : "no runner that asked for work lately offers "
                      + String.join(", ", agent.config().capabilities())));
    }
    return blocks;
  }

  /**
   * {@code tenant_cap} while the tenant holds its most leases at once ({@code until} null: a lease
   * may end at any moment), {@code tenant_rate} while its last minute holds its most grants ({@code
   * until} when the oldest of them leaves the minute).
   */
  public static List<Block> tenantBlocks(TenantLoad tenant, Instant now) {
    List<Block> blocks = new ArrayList<>();
    if (tenant == null) {
      return blocks;
    }
    if (tenant.maxConcurrent() != null && tenant.held() >= tenant.maxConcurrent()) {
      blocks.add(
          new Block(
              "tenant_cap",
              null,
              "tenant "
                  + tenant.tenant()
                  + " holds "
                  + tenant.held()
                  + " leases at once, its maxConcurrent is "
                  + tenant.maxConcurrent()));
    }
    if (tenant.maxPerMinute() != null
        && tenant.rateUntil() != null
        && tenant.rateUntil().isAfter(now)) {
      blocks.add(
          new Block(
              "tenant_rate",
              tenant.rateUntil(),
              "tenant "
                  + tenant.tenant()
                  + " was granted "
                  + tenant.lastMinute()
                  + " activations in the last minute, its maxActivationsPerMinute is "
                  + tenant.maxPerMinute()));
    }
    return blocks;
  }

  /** When the agent's minimum interval since its last activation ends; null when none applies. */
  public static Instant restedAt(AgentSummary agent) {
    if (agent.lastActivatedAt() == null || agent.config().minActivationIntervalSeconds() <= 0) {
      return null;
    }
    return agent.lastActivatedAt().plusSeconds(agent.config().minActivationIntervalSeconds());
  }

  /** Whether the agent stands in the inbox order now (it may still wait for a fitting runner). */
  public static boolean inInboxOrder(AgentSummary agent, Instant now) {
    return agent.registered() && agent.unread() > 0 && free(agent, now);
  }

  /**
   * Whether the agent stands among the due scheduled turns now: a fire has come and no unread
   * notification goes first.
   */
  public static boolean inScheduledOrder(AgentSummary agent, Instant now) {
    return agent.registered() && agent.unread() == 0 && agent.scheduleDue(now) && free(agent, now);
  }

  /** Whether the agent stands in the staleness order now. */
  public static boolean inStalenessOrder(AgentSummary agent, Instant now) {
    Instant rested = restedAt(agent);
    return agent.registered()
        && agent.unread() == 0
        && free(agent, now)
        && (rested == null || !rested.isAfter(now));
  }

  private static boolean free(AgentSummary agent, Instant now) {
    return !agent.paused()
        && agent.lease() == null
        && !agent.isDebouncing(now)
        && (agent.snoozedUntil() == null || !agent.snoozedUntil().isAfter(now));
  }
}
