package dev.rota.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.rota.cluster.assign.Dispatcher.RunnerSeen;
import dev.rota.cluster.runner.RunnerPool;
import dev.rota.cluster.runner.RunnerStatus;
import dev.rota.cluster.runner.RunnerStatus.Activity;
import dev.rota.core.model.RunnerMode;
import dev.rota.http.api.RunnerList.RunnerView;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** How the runner figures of the admin views are counted from dispatchers, pools and leases. */
class RunnerCensusTest {
  private static final Instant NOW = Instant.parse("2026-11-22T09:00:00Z");

  private static RunnerSeen external(String id, Duration ago) {
    return new RunnerSeen(id, null, "hybrid", Set.of("web", "code"), NOW.minus(ago));
  }

  private static RunnerStatus pooled(String id, String leaseId, Duration ago) {
    return new RunnerStatus(
        id,
        "node-1",
        "default",
        RunnerMode.NOTIFICATION,
        Set.of(),
        leaseId == null ? Activity.REQUESTING : Activity.EXECUTING,
        false,
        leaseId,
        leaseId == null ? null : "agent-x",
        NOW.minus(ago),
        0,
        0,
        0);
  }

  private static RunnerPool.Runners pool(int desired, RunnerStatus... runners) {
    return new RunnerPool.Runners("node-1", List.of(runners), Map.of("default", desired));
  }

  @Test
  void countsExternalRunnersSeenInTheLastMinuteOrHoldingALease() {
    RunnerCensus census =
        RunnerCensus.of(
            NOW,
            List.of(
                external("recent", Duration.ofSeconds(30)),
                external("gone", Duration.ofMinutes(5)),
                external("long-activation", Duration.ofMinutes(10))),
            List.of(),
            Map.of("long-activation", "lease-1"));

    assertEquals(2, census.active());
    assertEquals(1, census.busy());
    // No pools: as many runners are wanted as are active.
    assertEquals(2, census.desired());
  }

  @Test
  void countsEveryPoolRunnerAsActiveAndWantsThePoolSizesPlusActiveExternalRunners() {
    RunnerCensus census =
        RunnerCensus.of(
            NOW,
            List.of(external("ext", Duration.ofSeconds(1))),
            List.of(
                pool(
                    4,
                    pooled("node-1/default-1", "lease-9", Duration.ofMinutes(3)),
                    pooled("node-1/default-2", null, Duration.ofSeconds(2)))),
            Map.of());

    assertEquals(3, census.active());
    assertEquals(1, census.busy());
    assertEquals(5, census.desired());
  }

  @Test
  void listsEachRunnerOnceWithTheLatestSightingAndThePoolsOwnLease() {
    RunnerSeen seenByDispatcher =
        new RunnerSeen(
            "node-1/default-1", "node-1", "notification", Set.of(), NOW.minusSeconds(90));
    RunnerCensus census =
        RunnerCensus.of(
            NOW,
            List.of(seenByDispatcher, external("b-ext", Duration.ofSeconds(5))),
            List.of(pool(1, pooled("node-1/default-1", "lease-live", Duration.ofSeconds(10)))),
            Map.of("node-1/default-1", "lease-stale", "b-ext", "lease-ext"));

    List<RunnerView> runners = census.runners();

    assertEquals(
        List.of(
            new RunnerView(
                "b-ext", null, "hybrid", List.of("code", "web"), "lease-ext", NOW.minusSeconds(5)),
            new RunnerView(
                "node-1/default-1",
                "node-1",
                "notification",
                List.of(),
                "lease-live",
                NOW.minusSeconds(10))),
        runners);
  }

  @Test
  void leavesTheLeaseEmptyForAnIdleRunner() {
    RunnerCensus census =
        RunnerCensus.of(NOW, List.of(external("idle", Duration.ZERO)), List.of(), Map.of());

    assertNull(census.runners().get(0).leaseId());
    assertEquals(0, census.busy());
  }

  @Test
  void idealIntervalIsAgentsTimesMeanActivationOverRunners() {
    assertEquals(3000, AdminRoutes.idealIntervalSeconds(1000, Duration.ofSeconds(30), 10));
    assertEquals(
        3, AdminRoutes.idealIntervalSeconds(5, Duration.ofMillis(1500), 3), "2.5 s rounded");
    assertEquals(0, AdminRoutes.idealIntervalSeconds(1000, Duration.ofSeconds(30), 0));
    assertEquals(0, AdminRoutes.idealIntervalSeconds(1000, Duration.ZERO, 10));
  }
}
