package dev.rota.cluster.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.rota.cluster.assign.Dispatcher.RunnerSeen;
import dev.rota.cluster.runner.RunnerPool;
import dev.rota.cluster.runner.RunnerStatus;
import dev.rota.core.model.RunnerMode;
import dev.rota.core.pool.PoolSpec;
import dev.rota.core.pool.RunnerCount;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class PoolCensusTest {
  private static final Instant NOW = Instant.parse("2026-11-24T00:00:00Z");

  private static final PoolSpec NOTIFY =
      new PoolSpec(
          "notify",
          RunnerMode.NOTIFICATION,
          Set.of("code"),
          false,
          0,
          10,
          0.75,
          Duration.ofSeconds(30),
          Duration.ZERO);
  private static final PoolSpec EXPLORE =
      new PoolSpec(
          "explore",
          RunnerMode.EXPLORATION,
          Set.of("code"),
          false,
          0,
          10,
          0.75,
          Duration.ofSeconds(30),
          Duration.ofMinutes(5));

  private static RunnerStatus runner(String id, String pool, RunnerMode mode, String leaseId) {
    return new RunnerStatus(
        id,
        "node-1",
        pool,
        mode,
        Set.of("code"),
        RunnerStatus.Activity.REQUESTING,
        false,
        leaseId,
        leaseId == null ? null : "a1",
        NOW,
        0,
        0,
        0);
  }

  @Test
  void countsInClusterAndExternalRunnersInTheirPoolsWithTheirLeaseKinds() {
    var node =
        new RunnerPool.Runners(
            "node-1",
            List.of(
                runner("node-1/notify-1", "notify", RunnerMode.NOTIFICATION, "l1"),
                runner("node-1/notify-2", "notify", RunnerMode.NOTIFICATION, null)),
            Map.of("notify", 2));
    var seen =
        List.of(
            // an in-cluster runner as the dispatcher saw it: counted once
            new RunnerSeen("node-1/notify-1", "node-1", "notification", Set.of("code"), NOW),
            new RunnerSeen("ext-1", null, "exploration", Set.of("code"), NOW),
            new RunnerSeen("ext-2", null, "exploration", Set.of("code"), NOW.minusSeconds(30)),
            // silent for two minutes and holding nothing: not active
            new RunnerSeen("ext-3", null, "exploration", Set.of("code"), NOW.minusSeconds(120)),
            // no pool of its mode and capabilities
            new RunnerSeen("ext-4", null, "hybrid", Set.of("gpu"), NOW));
    PoolCensus census =
        PoolCensus.of(
            NOW,
            List.of(NOTIFY, EXPLORE),
            List.of(node),
            seen,
            Map.of("node-1/notify-1", "inbox", "ext-1", "exploration"));

    assertEquals(
        Map.of("notify", new RunnerCount(2, 1, 1), "explore", new RunnerCount(2, 1, 0)),
        census.counts());
    assertEquals(2, census.currentSize("notify"));
    assertEquals(0, census.external("notify"));
    assertEquals(2, census.external("explore"));
    assertEquals(2, census.currentSize("explore"));
  }
}
