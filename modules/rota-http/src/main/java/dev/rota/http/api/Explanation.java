package dev.rota.http.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.time.Instant;
import java.util.List;

/**
 * The answer of {@code GET /v1/agents/{agentId}/explain}: whether the agent could be picked now,
 * every reason it is not, and where it stands in the two orders of the assignment rule.
 *
 * @param agentId the agent's id within its tenant
 * @param tenant the tenant the agent belongs to
 * @param inbox its place in the inbox order; null when it is not registered
 * @param staleness its place in the staleness order; null when it is not registered
 * @param scheduled its earliest unserved schedule fire (null without schedules) and whether it has
 *     come; a due schedule is served after the inbox and before staleness
 */
public record Explanation(
    String agentId,
    String tenant,
    boolean eligible,
    Instant now,
    List<Blocked> blockedBy,
    InboxRank inbox,
    StalenessRank staleness,
    Scheduled scheduled) {

  /**
   * @param reason {@code leased}, {@code snoozed}, {@code min_interval}, {@code paused}, {@code
   *     system_paused}, {@code no_runner_with_capabilities} or {@code not_registered}
   * @param until when time alone ends it; null otherwise
   * @param group for {@code awaiting_replies}, the call group held, with {@code answered} of its
   *     {@code of} calls replied to; absent otherwise
   */
  public record Blocked(
      String reason,
      Instant until,
      String detail,
      @JsonInclude(JsonInclude.Include.NON_NULL) String group,
      @JsonInclude(JsonInclude.Include.NON_NULL) Integer answered,
      @JsonInclude(JsonInclude.Include.NON_NULL) Integer of) {
    public Blocked(String reason, Instant until, String detail) {
      this(reason, until, detail, null, null, null);
    }
  }

  /**
   * @param rank 1-based among the agents of its capability set the rule could pick now; null when
   *     it is not in this order
   * @param ahead agents before it; null with rank
   */
  public record InboxRank(int unread, Long rank, Long ahead) {}

  public record StalenessRank(Instant lastActivatedAt, Long rank, Long ahead) {}

  public record Scheduled(Instant nextFireAt, boolean due) {}
}
