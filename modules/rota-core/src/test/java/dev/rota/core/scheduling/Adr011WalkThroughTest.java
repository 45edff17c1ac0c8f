package dev.rota.core.scheduling;

import static dev.rota.core.scheduling.Agents.T0;
import static dev.rota.core.scheduling.Agents.agent;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.rota.core.model.ActivationKind;
import dev.rota.core.model.RunnerMode;
import java.time.Duration;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The walk-through of ADR-011: A has three unread notifications, B last ran two hours ago, C four
 * hours ago; two hybrid runners ask in turn while the coordinator marks its picks leased.
 */
class Adr011WalkThroughTest {

  @Test
  void inboxFirstThenStalestThenTheNextStalest() {
    SchedulingIndex index = new SchedulingIndex(Duration.ofMinutes(10));
    IndexRule rule = new IndexRule(index);
    index.upsert(
        agent("A").unread(3, T0.minusSeconds(30)).lastActivatedAt(T0.minusSeconds(60)).build());
    index.upsert(agent("B").lastActivatedAt(T0.minus(Duration.ofHours(2))).build());
    index.upsert(agent("C").lastActivatedAt(T0.minus(Duration.ofHours(4))).build());

    HeadsBoard.Pick runner1 = rule.next(RunnerMode.HYBRID, Set.of(), T0).orElseThrow();
    assertEquals("A", runner1.agent().agentId());
    assertEquals(ActivationKind.INBOX, runner1.kind());
    rule.markLeased("A");

    HeadsBoard.Pick runner2 = rule.next(RunnerMode.HYBRID, Set.of(), T0).orElseThrow();
    assertEquals("C", runner2.agent().agentId());
    assertEquals(ActivationKind.EXPLORATION, runner2.kind());
    rule.markLeased("C");

    // A completes: its notifications are read, it ran just now and its lease is gone.
    var done = T0.plusSeconds(5);
    index.upsert(agent("A").lastActivatedAt(done).build());

    HeadsBoard.Pick again = rule.next(RunnerMode.HYBRID, Set.of(), done).orElseThrow();
    assertEquals("B", again.agent().agentId());
    assertEquals(ActivationKind.EXPLORATION, again.kind());
  }
}
