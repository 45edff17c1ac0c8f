package dev.rota.core.scheduling;

import static dev.rota.core.scheduling.Agents.T0;
import static dev.rota.core.scheduling.Agents.agent;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.core.model.ActivationKind;
import dev.rota.core.model.RunnerMode;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The assignment rule of the README: inbox order, the max-wait jump, staleness order, modes. */
class SchedulingIndexRuleTest {

  private static final Duration MAX_WAIT = Duration.ofMinutes(10);
  private static final Set<String> NOTHING = Set.of();

  private final SchedulingIndex index = new SchedulingIndex(MAX_WAIT);
  private final IndexRule rule = new IndexRule(index);

  private Instant minutesAgo(long minutes) {
    return T0.minus(Duration.ofMinutes(minutes));
  }

  private String picked(RunnerMode mode) {
    return rule.next(mode, NOTHING, T0).map(p -> p.agent().agentId()).orElse(null);
  }

  @Test
  void emptyIndexHasNothingForAnyMode() {
    for (RunnerMode mode : RunnerMode.values()) {
      assertEquals(Optional.empty(), rule.next(mode, Set.of("code"), T0));
    }
  }

  @Test
  void inboxPicksAgentWithMostUnread() {
    index.upsert(agent("a").unread(2, minutesAgo(5)).build());
    index.upsert(agent("b").unread(7, minutesAgo(1)).build());
    index.upsert(agent("c").unread(3, minutesAgo(6)).build());

    HeadsBoard.Pick pick = rule.next(RunnerMode.NOTIFICATION, NOTHING, T0).orElseThrow();

    assertEquals("b", pick.agent().agentId());
    assertEquals(ActivationKind.INBOX, pick.kind());
  }

  @Test
  void inboxTieOnUnreadGoesToOldestUnread() {
    index.upsert(agent("a").unread(3, minutesAgo(2)).build());
    index.upsert(agent("b").unread(3, minutesAgo(4)).build());
    index.upsert(agent("c").unread(3, minutesAgo(3)).build());

    assertEquals("b", picked(RunnerMode.NOTIFICATION));
  }

  @Test
  void inboxTieOnUnreadAndOldestUnreadGoesToHigherPriority() {
    index.upsert(agent("a").unread(3, minutesAgo(2)).priority(1).build());
    index.upsert(agent("b").unread(3, minutesAgo(2)).priority(5).build());
    index.upsert(agent("c").unread(3, minutesAgo(2)).priority(-2).build());

    assertEquals("b", picked(RunnerMode.NOTIFICATION));
  }

  @Test
  void inboxFullTieGoesToLowestAgentId() {
    index.upsert(agent("b").unread(3, minutesAgo(2)).build());
    index.upsert(agent("a").unread(3, minutesAgo(2)).build());

    assertEquals("a", picked(RunnerMode.NOTIFICATION));
  }

  @Test
  void priorityDoesNotBeatMoreUnread() {
    index.upsert(agent("a").unread(4, minutesAgo(1)).priority(0).build());
    index.upsert(agent("b").unread(3, minutesAgo(2)).priority(100).build());

    assertEquals("a", picked(RunnerMode.NOTIFICATION));
  }

  @Test
  void notificationWaitingLongerThanMaxWaitJumpsTheLine() {
    index.upsert(agent("busy").unread(50, minutesAgo(3)).build());
    index.upsert(agent("starved").unread(1, minutesAgo(11)).build());

    assertEquals("starved", picked(RunnerMode.NOTIFICATION));
    assertEquals("starved", picked(RunnerMode.HYBRID));
  }

  @Test
  void notificationWaitingExactlyMaxWaitJumpsTheLine() {
    index.upsert(agent("busy").unread(50, minutesAgo(3)).build());
    index.upsert(agent("starved").unread(1, minutesAgo(10)).build());

    assertEquals("starved", picked(RunnerMode.NOTIFICATION));
  }

  @Test
  void notificationJustUnderMaxWaitDoesNotJump() {
    index.upsert(agent("busy").unread(50, minutesAgo(3)).build());
    index.upsert(agent("waiting").unread(1, minutesAgo(10).plusNanos(1)).build());

    assertEquals("busy", picked(RunnerMode.NOTIFICATION));
  }

  @Test
  void amongAgentsPastMaxWaitTheOldestUnreadWinsRegardlessOfUnreadCount() {
    index.upsert(agent("a").unread(9, minutesAgo(12)).build());
    index.upsert(agent("b").unread(1, minutesAgo(30)).build());
    index.upsert(agent("c").unread(20, minutesAgo(1)).build());

    assertEquals("b", picked(RunnerMode.NOTIFICATION));
  }

  @Test
  void amongEquallyOldJumpersTheInboxOrderDecides() {
    index.upsert(agent("a").unread(1, minutesAgo(30)).build());
    index.upsert(agent("b").unread(2, minutesAgo(30)).build());

    assertEquals("b", picked(RunnerMode.NOTIFICATION));
  }

  @Test
  void zeroMaxWaitServesInboxInArrivalOrder() {
    SchedulingIndex fifo = new SchedulingIndex(Duration.ZERO);
    fifo.upsert(agent("many").unread(9, minutesAgo(1)).build());
    fifo.upsert(agent("first").unread(1, minutesAgo(2)).build());

    assertEquals(
        "first",
        new IndexRule(fifo)
            .next(RunnerMode.NOTIFICATION, NOTHING, T0)
            .orElseThrow()
            .agent()
            .agentId());
  }

  @Test
  void notificationModeNeverTakesStaleWork() {
    index.upsert(agent("idle").build());

    assertEquals(Optional.empty(), rule.next(RunnerMode.NOTIFICATION, NOTHING, T0));
  }

  @Test
  void explorationModeIgnoresAgentsWithUnread() {
    index.upsert(agent("inbox").unread(5, minutesAgo(30)).build());
    assertEquals(Optional.empty(), rule.next(RunnerMode.EXPLORATION, NOTHING, T0));

    index.upsert(agent("idle").lastActivatedAt(minutesAgo(1)).build());
    HeadsBoard.Pick pick = rule.next(RunnerMode.EXPLORATION, NOTHING, T0).orElseThrow();
    assertEquals("idle", pick.agent().agentId());
    assertEquals(ActivationKind.EXPLORATION, pick.kind());
  }

  @Test
  void hybridTakesInboxBeforeStaleness() {
    index.upsert(agent("never-ran").build());
    index.upsert(agent("inbox").unread(1, minutesAgo(0)).lastActivatedAt(minutesAgo(1)).build());

    assertEquals("inbox", picked(RunnerMode.HYBRID));
  }

  @Test
  void hybridFallsBackToStalenessWhenNoInboxWorkFits() {
    index.upsert(agent("gpu-inbox").requires("gpu").unread(9, minutesAgo(30)).build());
    index.upsert(agent("idle").lastActivatedAt(minutesAgo(60)).build());

    HeadsBoard.Pick pick = rule.next(RunnerMode.HYBRID, Set.of("code"), T0).orElseThrow();

    assertEquals("idle", pick.agent().agentId());
    assertEquals(ActivationKind.EXPLORATION, pick.kind());
  }

  @Test
  void stalenessPicksOldestLastActivatedAt() {
    index.upsert(agent("recent").lastActivatedAt(minutesAgo(5)).build());
    index.upsert(agent("oldest").lastActivatedAt(minutesAgo(500)).build());
    index.upsert(agent("older").lastActivatedAt(minutesAgo(50)).build());

    assertEquals("oldest", picked(RunnerMode.EXPLORATION));
  }

  @Test
  void stalenessPicksNeverActivatedFirst() {
    index.upsert(agent("ancient").lastActivatedAt(Instant.EPOCH).build());
    index.upsert(agent("newcomer").build());

    assertEquals("newcomer", picked(RunnerMode.EXPLORATION));
  }

  @Test
  void stalenessTieGoesToLowestAgentId() {
    index.upsert(agent("z").build());
    index.upsert(agent("m").build());
    index.upsert(agent("y").lastActivatedAt(minutesAgo(5)).build());
    index.upsert(agent("x").lastActivatedAt(minutesAgo(5)).build());

    assertEquals("m", picked(RunnerMode.EXPLORATION));
    rule.markLeased("m");
    assertEquals("z", picked(RunnerMode.EXPLORATION));
    rule.markLeased("z");
    assertEquals("x", picked(RunnerMode.EXPLORATION));
  }

  @Test
  void minActivationIntervalSkipsAgentForStaleness() {
    index.upsert(
        agent("resting")
            .lastActivatedAt(minutesAgo(500))
            .minActivationInterval(Duration.ofHours(12))
            .build());
    index.upsert(agent("fresh").lastActivatedAt(minutesAgo(5)).build());

    assertEquals("fresh", picked(RunnerMode.EXPLORATION));
    rule.markLeased("fresh");
    assertEquals(null, picked(RunnerMode.EXPLORATION));
  }

  @Test
  void minActivationIntervalEndsExactlyAtLastActivatedPlusInterval() {
    index.upsert(
        agent("resting")
            .lastActivatedAt(minutesAgo(60))
            .minActivationInterval(Duration.ofMinutes(60))
            .build());

    assertEquals("resting", picked(RunnerMode.EXPLORATION));
  }

  @Test
  void minActivationIntervalDoesNotDelayInboxWork() {
    index.upsert(
        agent("just-ran")
            .unread(1, minutesAgo(0))
            .lastActivatedAt(minutesAgo(0))
            .minActivationInterval(Duration.ofHours(12))
            .build());

    assertEquals("just-ran", picked(RunnerMode.NOTIFICATION));
    assertEquals("just-ran", picked(RunnerMode.HYBRID));
  }

  @Test
  void agentWithInboxIsNeverStaleWorkEvenInHybrid() {
    index.upsert(agent("inbox").requires("gpu").unread(1, minutesAgo(0)).build());

    assertTrue(rule.next(RunnerMode.HYBRID, NOTHING, T0).isEmpty());
    assertTrue(rule.nextStale(Set.of("gpu"), T0).isEmpty());
  }
}
