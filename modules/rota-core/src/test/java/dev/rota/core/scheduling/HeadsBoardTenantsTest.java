package dev.rota.core.scheduling;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.fail;

import dev.rota.core.model.ActivationKind;
import dev.rota.core.model.RunnerMode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The board with agents of several tenants: the index groups them by tenant, the tenant is chosen
 * first within each kind of work, and the rule is applied among the chosen tenant's agents.
 */
class HeadsBoardTenantsTest {
  private static final Duration MAX_WAIT = Duration.ofMinutes(5);
  private static final HeadsBoard.TenantChoice NEVER =
      (kind, tenants) -> fail("no choice expected among " + tenants);

  private final List<List<String>> asked = new ArrayList<>();

  private HeadsBoard board(AgentSchedule... agents) {
    SchedulingIndex index = new SchedulingIndex(MAX_WAIT);
    for (AgentSchedule a : agents) {
      index.upsert(a);
    }
    HeadsBoard board = new HeadsBoard(MAX_WAIT);
    board.put(0, index.heads(4, Agents.T0, id -> 1));
    return board;
  }

  private HeadsBoard.TenantChoice choosing(String tenant) {
    return (kind, tenants) -> {
      asked.add(List.copyOf(tenants));
      return tenant;
    };
  }

  private static String taken(HeadsBoard.Decision d) {
    return assertInstanceOf(HeadsBoard.Take.class, d).pick().agent().agentId();
  }

  @Test
  void theChosenTenantsBestAgentIsTakenEvenIfAnotherTenantHasMoreUnread() {
    HeadsBoard board =
        board(
            Agents.agent("loud/a1").unread(50, Agents.T0.minusSeconds(10)).build(),
            Agents.agent("quiet/q1").unread(1, Agents.T0.minusSeconds(1)).build(),
            Agents.agent("quiet/q2").unread(2, Agents.T0.minusSeconds(1)).build());
    HeadsBoard.Decision d =
        board.decide(
            RunnerMode.HYBRID, Set.of(), Agents.T0, h -> true, t -> true, choosing("quiet"));
    assertEquals("quiet/q2", taken(d));
    assertEquals(List.of(Set.of("loud", "quiet")), asked.stream().map(Set::copyOf).toList());
    // Without a choice, every tenant's agents compete as one: the single-tenant rule.
    assertEquals("loud/a1", taken(board.decide(RunnerMode.HYBRID, Set.of(), Agents.T0, h -> true)));
  }

  @Test
  void inboxWorkOfAnyTenantGoesBeforeStalenessWorkOfAnother() {
    HeadsBoard board =
        board(
            Agents.agent("busy/b1").unread(1, Agents.T0.minusSeconds(1)).build(),
            Agents.agent("idle/i1").build());
    HeadsBoard.Decision d =
        board.decide(RunnerMode.HYBRID, Set.of(), Agents.T0, h -> true, t -> true, NEVER);
    HeadsBoard.Take take = assertInstanceOf(HeadsBoard.Take.class, d);
    assertEquals("busy/b1", take.pick().agent().agentId());
    assertEquals(ActivationKind.INBOX, take.pick().kind());
    // Staleness work: both tenants have some, so the tenant is chosen.
    HeadsBoard.Decision stale =
        board.decide(
            RunnerMode.EXPLORATION, Set.of(), Agents.T0, h -> true, t -> true, choosing("idle"));
    assertEquals("idle/i1", taken(stale));
  }

  @Test
  void aNotificationThatWaitedTooLongJumpsOnlyItsOwnTenantsLine() {
    HeadsBoard board =
        board(
            Agents.agent("loud/old").unread(1, Agents.T0.minus(MAX_WAIT).minusSeconds(1)).build(),
            Agents.agent("quiet/q1").unread(1, Agents.T0.minusSeconds(1)).build());
    assertEquals(
        "quiet/q1",
        taken(
            board.decide(
                RunnerMode.HYBRID, Set.of(), Agents.T0, h -> true, t -> true, choosing("quiet"))));
    assertEquals(
        "loud/old",
        taken(
            board.decide(
                RunnerMode.HYBRID, Set.of(), Agents.T0, h -> true, t -> true, choosing("loud"))));
  }

  @Test
  void aRequestSeesOnlyTheTenantsItServes() {
    HeadsBoard board =
        board(
            Agents.agent("acme/a1").unread(9, Agents.T0.minusSeconds(9)).build(),
            Agents.agent("beta/b1").unread(1, Agents.T0.minusSeconds(1)).build());
    assertEquals(
        "beta/b1",
        taken(
            board.decide(
                RunnerMode.HYBRID, Set.of(), Agents.T0, h -> true, "beta"::equals, NEVER)));
  }

  @Test
  void defaultAgentsAloneAskForNoChoice() {
    HeadsBoard board =
        board(
            Agents.agent("a1").unread(2, Agents.T0.minusSeconds(2)).build(),
            Agents.agent("a2").unread(1, Agents.T0.minusSeconds(1)).build(),
            Agents.agent("a3").build());
    assertEquals(
        "a1",
        taken(board.decide(RunnerMode.HYBRID, Set.of(), Agents.T0, h -> true, t -> true, NEVER)));
    assertEquals(
        "a3",
        taken(
            board.decide(
                RunnerMode.EXPLORATION, Set.of(), Agents.T0, h -> true, t -> true, NEVER)));
  }

  @Test
  void aChosenTenantWhoseShownAgentsAreAllClaimedIsAwaited() {
    SchedulingIndex index = new SchedulingIndex(MAX_WAIT);
    for (int i = 0; i < 3; i++) {
      index.upsert(Agents.agent("acme/a" + i).unread(5, Agents.T0.minusSeconds(5)).build());
    }
    HeadsBoard board = new HeadsBoard(MAX_WAIT);
    board.put(0, index.heads(2, Agents.T0, id -> 1));
    SchedulingIndex other = new SchedulingIndex(MAX_WAIT);
    other.upsert(Agents.agent("beta/b1").unread(1, Agents.T0.minusSeconds(1)).build());
    board.put(1, other.heads(2, Agents.T0, id -> 1));
    // acme's two shown agents are claimed; its third is not shown: wait for partition 0.
    HeadsBoard.Decision d =
        board.decide(
            RunnerMode.HYBRID,
            Set.of(),
            Agents.T0,
            h -> !h.agent().agentId().startsWith("acme/"),
            t -> true,
            choosing("acme"));
    assertEquals(new HeadsBoard.Await(0), d);
  }
}
