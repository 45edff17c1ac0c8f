package dev.rota.core.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.core.model.RunnerMode;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class PoolsTest {
  private static final Instant T0 = Instant.parse("2026-11-24T00:00:00Z");

  private static PoolSpec pool(String name, RunnerMode mode, Set<String> caps, boolean any) {
    return new PoolSpec(
        name,
        mode,
        caps,
        any,
        0,
        10,
        0.75,
        Duration.ofSeconds(30),
        mode == RunnerMode.NOTIFICATION ? Duration.ZERO : Duration.ofMinutes(10));
  }

  private final PoolSpec notify = pool("notify", RunnerMode.NOTIFICATION, Set.of("code"), false);
  private final PoolSpec explore = pool("explore", RunnerMode.EXPLORATION, Set.of("code"), false);
  private final PoolSpec wide = pool("wide", RunnerMode.NOTIFICATION, Set.of("code", "web"), false);
  private final PoolSpec catchAll = pool("default", RunnerMode.HYBRID, Set.of(), true);
  private final List<PoolSpec> specs = List.of(wide, notify, explore, catchAll);

  private static BacklogGroup group(Set<String> caps, long agents, long withInbox) {
    return new BacklogGroup(caps, 0, agents, withInbox, withInbox, T0, T0.minusSeconds(60));
  }

  @Test
  void inboxWorkCountsInTheNarrowestNotificationPoolAndStalenessInTheExplorationPool() {
    Map<String, PoolLoad> loads =
        Pools.loads(specs, List.of(group(Set.of("code"), 10, 4)), Map.of());
    assertEquals(4, loads.get("notify").waiting());
    assertEquals(0, loads.get("wide").waiting());
    assertEquals(10, loads.get("explore").agents());
    assertEquals(0, loads.get("default").agents());
    assertEquals(0, loads.get("default").waiting());
    assertEquals(T0.minusSeconds(60), loads.get("explore").stalestAt());
  }

  @Test
  void workOnlyAWiderPoolCanTakeCountsThereAndTheRestInTheCatchAll() {
    Map<String, PoolLoad> loads =
        Pools.loads(
            specs,
            List.of(group(Set.of("code", "web"), 5, 5), group(Set.of("gpu"), 3, 1)),
            Map.of());
    assertEquals(5, loads.get("wide").waiting());
    // explore offers only code: web agents' staleness goes to the catch-all hybrid pool.
    assertEquals(8, loads.get("default").agents());
    assertEquals(1, loads.get("default").waiting());
  }

  @Test
  void runnersBelongToTheirInClusterPoolThenToThePoolOfTheirModeAndCapabilities() {
    assertEquals(
        "explore",
        Pools.poolOfRunner(specs, "explore", RunnerMode.HYBRID, Set.of()).orElseThrow().name());
    assertEquals(
        "notify",
        Pools.poolOfRunner(specs, null, RunnerMode.NOTIFICATION, Set.of("code"))
            .orElseThrow()
            .name());
    assertEquals(
        "default",
        Pools.poolOfRunner(specs, null, RunnerMode.EXPLORATION, Set.of("gpu"))
            .orElseThrow()
            .name());
    assertTrue(Pools.poolOfRunner(List.of(notify), null, RunnerMode.HYBRID, Set.of()).isEmpty());
  }

  @Test
  void runnerCountsAreCarriedIntoTheLoads() {
    Map<String, PoolLoad> loads =
        Pools.loads(specs, List.of(), Map.of("notify", new RunnerCount(3, 2, 2)));
    assertEquals(new RunnerCount(3, 2, 2), loads.get("notify").runners());
    assertEquals(RunnerCount.NONE, loads.get("explore").runners());
  }

  @Test
  void runnersSpreadEvenlyOverTheNodesWithinWhatEachTakes() {
    List<String> nodes = List.of("a", "b", "c");
    assertEquals(Map.of("a", 3, "b", 2, "c", 2), Pools.spread(7, nodes, Map.of(), Map.of()));
    // b takes at most 1: the rest goes to a and c.
    assertEquals(Map.of("a", 3, "b", 1, "c", 3), Pools.spread(7, nodes, Map.of(), Map.of("b", 1)));
    // c keeps at least 2 whatever the total.
    assertEquals(Map.of("a", 0, "b", 0, "c", 2), Pools.spread(1, nodes, Map.of("c", 2), Map.of()));
    // More than every node takes: each is held at its cap.
    assertEquals(
        Map.of("a", 1, "b", 1, "c", 1),
        Pools.spread(10, nodes, Map.of(), Map.of("a", 1, "b", 1, "c", 1)));
  }
}
