package dev.rota.client;

import java.time.Instant;
import java.util.List;

/**
 * Why an agent is or is not being picked ({@code GET /v1/agents/{id}/explain}).
 *
 * @param blockedBy what keeps it from being eligible, empty when eligible
 */
public record Explanation(
    String agentId,
    boolean eligible,
    Instant now,
    List<Block> blockedBy,
    Rank inbox,
    Rank staleness,
    Scheduled scheduled) {

  /**
   * One reason: {@code leased}, {@code snoozed}, {@code min_interval}, {@code paused}, {@code
   * system_paused}, {@code no_runner_with_capabilities} or {@code not_registered}.
   */
  public record Block(String reason, Instant until, String detail) {}

  /**
   * The agent's place in one order (1-based {@code rank}, null when it is not in that order).
   *
   * @param unread set in the inbox order
   * @param lastActivatedAt set in the staleness order
   */
  public record Rank(Integer unread, Instant lastActivatedAt, Integer rank, Integer ahead) {}

  public record Scheduled(Instant nextFireAt, boolean due) {}
}
