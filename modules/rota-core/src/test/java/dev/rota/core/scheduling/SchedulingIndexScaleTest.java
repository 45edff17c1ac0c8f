package dev.rota.core.scheduling;

import static dev.rota.core.scheduling.Agents.T0;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.core.model.ActivationKind;
import dev.rota.core.model.RunnerMode;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * Large populations: the order holds over many agents and capability groups, and (on demand, with
 * {@code -Drota.scale=true}) a million agents fit and are served.
 */
class SchedulingIndexScaleTest {

  private static final Duration MAX_WAIT = Duration.ofMinutes(10);
  private static final Set<String> EVERYTHING = Set.of("a", "b", "c", "d");

  /** The rule's orders, restated here rather than borrowed from the index. */
  private static final Comparator<AgentSchedule> INBOX_ORDER =
      Comparator.comparingInt((AgentSchedule r) -> -r.unread())
          .thenComparing(AgentSchedule::oldestUnreadAt)
          .thenComparingInt(r -> -r.priority())
          .thenComparing(AgentSchedule::agentId);

  private static final Comparator<AgentSchedule> STALE_ORDER =
      Comparator.comparing(
              AgentSchedule::lastActivatedAt, Comparator.nullsFirst(Comparator.naturalOrder()))
          .thenComparing(AgentSchedule::agentId);

  @Test
  void drainsFiftyThousandAgentsInRuleOrderAcrossSixteenCapabilityGroups() {
    SchedulingIndex index = new SchedulingIndex(MAX_WAIT);
    IndexRule rule = new IndexRule(index);
    int eligible = fill(index, 50_000, new Random(5));

    List<HeadsBoard.Pick> picks = new ArrayList<>();
    for (Optional<HeadsBoard.Pick> pick = rule.next(RunnerMode.HYBRID, EVERYTHING, T0);
        pick.isPresent();
        pick = rule.next(RunnerMode.HYBRID, EVERYTHING, T0)) {
      picks.add(pick.get());
      rule.markLeased(pick.get().agent().agentId());
    }

    assertEquals(eligible, picks.size());
    Set<String> seen = new HashSet<>();
    for (int i = 0; i < picks.size(); i++) {
      HeadsBoard.Pick pick = picks.get(i);
      assertTrue(seen.add(pick.agent().agentId()), "picked twice");
      if (i == 0) {
        continue;
      }
      HeadsBoard.Pick before = picks.get(i - 1);
      if (pick.kind() == ActivationKind.INBOX) {
        assertEquals(ActivationKind.INBOX, before.kind(), "inbox work after staleness work");
        assertTrue(INBOX_ORDER.compare(before.agent(), pick.agent()) < 0, "inbox order broken");
      } else if (before.kind() == ActivationKind.EXPLORATION) {
        assertTrue(STALE_ORDER.compare(before.agent(), pick.agent()) < 0, "staleness order broken");
      }
    }
  }

  @Test
  @EnabledIfSystemProperty(named = "rota.scale", matches = "true")
  void holdsAMillionAgents() {
    Runtime runtime = Runtime.getRuntime();
    System.gc();
    long heapBefore = runtime.totalMemory() - runtime.freeMemory();
    long started = System.nanoTime();
    SchedulingIndex index = new SchedulingIndex(MAX_WAIT);
    IndexRule rule = new IndexRule(index);
    fill(index, 1_000_000, new Random(6));
    long loaded = System.nanoTime();
    System.gc();
    long bytesPerAgent = (runtime.totalMemory() - runtime.freeMemory() - heapBefore) / 1_000_000;

    Random random = new Random(7);
    List<Set<String>> offers = capabilitySets();
    int served = 0;
    Instant now = T0;
    for (int i = 0; i < 100_000; i++) {
      now = now.plusMillis(10);
      RunnerMode mode = RunnerMode.values()[random.nextInt(3)];
      Optional<HeadsBoard.Pick> pick =
          rule.next(mode, offers.get(random.nextInt(offers.size())), now);
      if (pick.isPresent()) {
        rule.markLeased(pick.get().agent().agentId());
        served++;
      }
    }
    long picked = System.nanoTime();

    System.out.printf(
        "1,000,000 agents: %d bytes/agent, load %d ms, 100,000 picks %d ms (%d served)%n",
        bytesPerAgent, (loaded - started) / 1_000_000, (picked - loaded) / 1_000_000, served);
    assertEquals(1_000_000, index.size());
    assertTrue(bytesPerAgent < 500, "bytes per agent: " + bytesPerAgent);
  }

  /**
   * Registers {@code count} agents spread over every subset of four capabilities; a tenth have an
   * inbox (younger than max-wait, so the order is the plain inbox order), some are paused, snoozed
   * or within their minimum interval. Returns how many are eligible at {@link Agents#T0}.
   */
  private static int fill(SchedulingIndex index, int count, Random random) {
    List<Set<String>> capabilitySets = capabilitySets();
    int eligible = 0;
    for (int i = 0; i < count; i++) {
      int dice = random.nextInt(100);
      boolean inbox = dice < 10;
      boolean paused = dice >= 90 && dice < 93;
      Instant snoozedUntil =
          dice >= 93 && dice < 96 ? T0.plusSeconds(1 + random.nextInt(600)) : null;
      boolean resting = dice >= 96;
      Instant lastActivated =
          resting || random.nextInt(50) != 0 ? T0.minusSeconds(random.nextInt(86_400)) : null;
      index.upsert(
          new AgentSchedule(
              "agent-" + i,
              capabilitySets.get(random.nextInt(capabilitySets.size())),
              random.nextInt(3),
              inbox ? 1 + random.nextInt(5) : 0,
              inbox ? T0.minusSeconds(random.nextInt(300)) : null,
              lastActivated,
              resting ? Duration.ofDays(2) : Duration.ZERO,
              false,
              paused,
              snoozedUntil));
      eligible += paused || snoozedUntil != null || resting ? 0 : 1;
    }
    return eligible;
  }

  private static List<Set<String>> capabilitySets() {
    List<String> universe = List.copyOf(EVERYTHING);
    List<Set<String>> sets = new ArrayList<>();
    for (int mask = 0; mask < 1 << universe.size(); mask++) {
      Set<String> set = new HashSet<>();
      for (int bit = 0; bit < universe.size(); bit++) {
        if ((mask & 1 << bit) != 0) {
          set.add(universe.get(bit));
        }
      }
      sets.add(set);
    }
    return sets;
  }
}
