package dev.rota.cluster.health;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import dev.rota.cluster.health.RunnerBlock.Status;
import dev.rota.cluster.health.RunnerHealth.Blocks;
import dev.rota.cluster.health.RunnerHealth.Command;
import dev.rota.cluster.health.RunnerHealth.Event;
import dev.rota.cluster.health.RunnerHealth.HealthReport;
import dev.rota.cluster.health.RunnerHealth.RunnerDegraded;
import dev.rota.cluster.health.RunnerHealth.RunnerDraining;
import dev.rota.cluster.health.RunnerHealth.RunnerRestored;
import dev.rota.cluster.health.RunnerHealth.RunnerState;
import dev.rota.cluster.metrics.RotaMetrics;
import dev.rota.core.health.HealthPolicy;
import dev.rota.core.health.RunnerOutcome;
import dev.rota.core.health.RunnerOutcome.Kind;
import java.time.Duration;
import java.time.Instant;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.LogCapturingExtension;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.pubsub.Topic;
import org.apache.pekko.persistence.testkit.javadsl.EventSourcedBehaviorTestKit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(LogCapturingExtension.class)
class RunnerHealthTest {
  private static final ActorTestKit TEST_KIT =
      ActorTestKit.create(
          "RunnerHealthTest",
          EventSourcedBehaviorTestKit.config().withFallback(ConfigFactory.load()));
  private static final HealthSettings SETTINGS =
      new HealthSettings(
          HealthPolicy.DEFAULT, Duration.ofSeconds(30), 3600, Duration.ofSeconds(30));

  private TestProbe<Blocks> published;
  private EventSourcedBehaviorTestKit<Command, Event, BlockedRunners> kit;

  @AfterAll
  static void shutdown() {
    TEST_KIT.shutdownTestKit();
  }

  @BeforeEach
  void setUp() {
    ActorRef<Topic.Command<Blocks>> topic =
        TEST_KIT.spawn(Topic.create(Blocks.class, "blocks-" + System.nanoTime()));
    published = TEST_KIT.createTestProbe();
    topic.tell(Topic.subscribe(published.ref()));
    kit =
        EventSourcedBehaviorTestKit.create(
            TEST_KIT.system(),
            RunnerHealth.create(topic, SETTINGS, RotaMetrics.get(TEST_KIT.system())),
            EventSourcedBehaviorTestKit.enabledSerializationSettings());
    kit.clear();
  }

  private void outcome(String runnerId, Kind kind, String error) {
    kit.runCommand(
        new RunnerHealth.Outcome(
            runnerId, new RunnerOutcome(kind, Instant.now(), Duration.ofMillis(200), error), null));
  }

  /** The first publication that blocks {@code runnerId}; earlier ones (recovery) are skipped. */
  private Blocks publishedWith(String runnerId) {
    return published
        .fishForMessage(
            Duration.ofSeconds(5),
            blocks ->
                blocks.blocks().containsKey(runnerId)
                    ? org.apache.pekko.actor.testkit.typed.javadsl.FishingOutcomes.complete()
                    : org.apache.pekko.actor.testkit.typed.javadsl.FishingOutcomes
                        .continueAndIgnore())
        .get(0);
  }

  private HealthReport report() {
    return kit.<HealthReport>runCommand(RunnerHealth.GetReport::new).reply();
  }

  @Test
  void degradesARunnerOnItsThirdFailureInARowAndPublishesTheBlock() {
    outcome("r1", Kind.FAILED, "boom");
    outcome("r1", Kind.EXPIRED, "lease expired");
    var third =
        kit.runCommand(
            new RunnerHealth.Outcome(
                "r1",
                new RunnerOutcome(Kind.FAILED, Instant.now(), Duration.ofMillis(200), "key"),
                null));
    RunnerDegraded degraded = assertInstanceOf(RunnerDegraded.class, third.event());
    assertTrue(degraded.reason().contains("key"), degraded.reason());
    assertEquals(
        Duration.ofMinutes(5),
        Duration.between(degraded.at(), degraded.until()),
        degraded.toString());
    RunnerBlock block = publishedWith("r1").blocks().get("r1");
    assertEquals(Status.DEGRADED, block.status());

    var view = report().runners().get("r1");
    assertEquals(2, view.stats().failed());
    assertEquals(1, view.stats().expired());
    assertEquals(Status.DEGRADED, view.block().status());
  }

  @Test
  void aCompletionBetweenFailuresKeepsTheRunnerHealthy() {
    outcome("r2", Kind.FAILED, "a");
    outcome("r2", Kind.FAILED, "b");
    outcome("r2", Kind.COMPLETED, null);
    var fourth =
        kit.runCommand(
            new RunnerHealth.Outcome(
                "r2", new RunnerOutcome(Kind.FAILED, Instant.now(), Duration.ZERO, "c"), null));
    assertTrue(fourth.hasNoEvents());
    assertNull(report().runners().get("r2").block());
  }

  @Test
  void aRunnersOwnReportDrainAndRestore() {
    var reported =
        kit.<RunnerState>runCommand(r -> new RunnerHealth.Report("r3", true, "oom", 60, null, r));
    assertInstanceOf(RunnerDegraded.class, reported.event());
    assertEquals("oom", reported.reply().block().reason());
    assertTrue(((RunnerDegraded) reported.event()).byRunner());

    var drained = kit.<RunnerState>runCommand(r -> new RunnerHealth.Drain("r3", r));
    assertInstanceOf(RunnerDraining.class, drained.event());
    assertEquals(Status.DRAINING, drained.reply().block().status());
    // A drain is not lifted by the runner's own word.
    var healthy =
        kit.<RunnerState>runCommand(r -> new RunnerHealth.Report("r3", false, null, 0, null, r));
    assertTrue(healthy.hasNoEvents());
    assertEquals(Status.DRAINING, healthy.reply().block().status());

    var restored = kit.<RunnerState>runCommand(r -> new RunnerHealth.Restore("r3", r));
    assertInstanceOf(RunnerRestored.class, restored.event());
    assertNull(restored.reply().block());
    assertTrue(kit.getState().blocks().isEmpty());
  }

  @Test
  void aDegradationEndsWhenItsTimeRunsOut() {
    kit.<RunnerState>runCommand(r -> new RunnerHealth.Report("r4", true, "brief", 1, null, r));
    publishedWith("r4");
    // The singleton's tick (every second) restores it and publishes the empty set.
    published.fishForMessage(
        Duration.ofSeconds(5),
        blocks ->
            blocks.blocks().containsKey("r4")
                ? org.apache.pekko.actor.testkit.typed.javadsl.FishingOutcomes.continueAndIgnore()
                : org.apache.pekko.actor.testkit.typed.javadsl.FishingOutcomes.complete());
    assertTrue(kit.getState().blocks().isEmpty());
  }

  @Test
  void noMoreThanMaxBlocksRunnersAreDegradedAndLongReasonsAreCut() {
    HealthSettings capped =
        new HealthSettings(
            HealthPolicy.DEFAULT, Duration.ofSeconds(30), 3600, Duration.ofSeconds(30), 3);
    ActorRef<Topic.Command<Blocks>> topic =
        TEST_KIT.spawn(Topic.create(Blocks.class, "capped-" + System.nanoTime()));
    TestProbe<Blocks> seen = TEST_KIT.createTestProbe();
    topic.tell(Topic.subscribe(seen.ref()));
    var capKit =
        EventSourcedBehaviorTestKit.<Command, Event, BlockedRunners>create(
            TEST_KIT.system(),
            RunnerHealth.create(topic, capped, RotaMetrics.get(TEST_KIT.system())),
            EventSourcedBehaviorTestKit.enabledSerializationSettings());
    capKit.clear();
    String longReason = "x".repeat(5000);
    for (int i = 0; i < 10; i++) {
      String id = "flood-" + i;
      capKit.<RunnerState>runCommand(
          r -> new RunnerHealth.Report(id, true, longReason, 600, null, r));
    }
    assertEquals(
        3, capKit.getState().blocks().size(), capKit.getState().blocks().keySet().toString());
    for (RunnerBlock block : capKit.getState().blocks().values()) {
      assertTrue(block.reason().length() <= RunnerBlock.MAX_REASON, block.reason());
    }
    var refused =
        capKit.<RunnerState>runCommand(
            r -> new RunnerHealth.Report("flood-9", true, "oom", 60, null, r));
    assertNull(refused.reply().block(), "past the cap a runner is not degraded");
    assertTrue(refused.events().isEmpty(), "and nothing is persisted for it");
    // A runner already blocked can still be reported, and an admin's drain is always taken.
    var again =
        capKit.<RunnerState>runCommand(
            r -> new RunnerHealth.Report("flood-0", true, "oom", 60, null, r));
    assertEquals(Status.DEGRADED, again.reply().block().status());
    var drained = capKit.<RunnerState>runCommand(r -> new RunnerHealth.Drain("admin-pick", r));
    assertEquals(Status.DRAINING, drained.reply().block().status());
  }

  /**
   * One tenant's runners cannot take every block: reports under one scope and degradations by one
   * tenant's agents' activations stop at max-blocks-per-tenant, while another tenant's runner, and
   * one reported by a token of every tenant, are still degraded.
   */
  @Test
  void aTenantsRunnersAreDegradedOnlyUpToItsOwnCap() {
    HealthSettings capped =
        new HealthSettings(
            HealthPolicy.DEFAULT, Duration.ofSeconds(30), 3600, Duration.ofSeconds(30), 10, 2);
    ActorRef<Topic.Command<Blocks>> topic =
        TEST_KIT.spawn(Topic.create(Blocks.class, "tenant-capped-" + System.nanoTime()));
    var capKit =
        EventSourcedBehaviorTestKit.<Command, Event, BlockedRunners>create(
            TEST_KIT.system(),
            RunnerHealth.create(topic, capped, RotaMetrics.get(TEST_KIT.system())),
            EventSourcedBehaviorTestKit.enabledSerializationSettings());
    capKit.clear();
    for (int i = 0; i < 5; i++) {
      String id = "acme-" + i;
      capKit.<RunnerState>runCommand(
          r -> new RunnerHealth.Report(id, true, "flood", 600, "acme", r));
    }
    assertEquals(
        java.util.Set.of("acme-0", "acme-1"), capKit.getState().blocks().keySet(), "acme's cap");

    var beta =
        capKit.<RunnerState>runCommand(
            r -> new RunnerHealth.Report("beta-0", true, "oom", 60, "beta", r));
    assertEquals(Status.DEGRADED, beta.reply().block().status());
    var shared =
        capKit.<RunnerState>runCommand(
            r -> new RunnerHealth.Report("shared", true, "oom", 60, null, r));
    assertEquals(Status.DEGRADED, shared.reply().block().status());

    // Degradation by record: acme's agents' failures no longer degrade a runner, beta's do.
    for (String tenant : java.util.List.of("acme", "beta")) {
      for (int i = 0; i < HealthPolicy.DEFAULT.failuresInARow(); i++) {
        capKit.runCommand(
            new RunnerHealth.Outcome(
                "pool-" + tenant,
                new RunnerOutcome(Kind.FAILED, Instant.now(), Duration.ofMillis(5), "boom"),
                tenant));
      }
    }
    assertTrue(capKit.getState().blocks().containsKey("pool-beta"));
    assertTrue(!capKit.getState().blocks().containsKey("pool-acme"), capKit.getState().toString());

    // Restoring one of acme's runners gives acme its place back.
    capKit.<RunnerState>runCommand(r -> new RunnerHealth.Restore("acme-0", r));
    var again =
        capKit.<RunnerState>runCommand(
            r -> new RunnerHealth.Report("acme-4", true, "oom", 60, "acme", r));
    assertEquals(Status.DEGRADED, again.reply().block().status());
  }

  @Test
  void thePoolLabelOfMetricsIsAConfiguredPoolOrExternal() {
    var config =
        ConfigFactory.parseString(
            "rota.runners.pools = [{ name = scripts, count = 1 }]\n"
                + "rota.pools.pools = [{ name = notify }]");
    var kit = ActorTestKit.create("PoolLabels", config.withFallback(ConfigFactory.load()));
    try {
      RotaMetrics metrics = RotaMetrics.get(kit.system());
      assertEquals("scripts", metrics.poolLabel("10.0.0.1:25520/scripts-3"));
      assertEquals("notify", metrics.poolLabel("node/notify-0"));
      assertEquals("external", metrics.poolLabel("runner-7"));
      assertEquals("external", metrics.poolLabel("x/any-name-a-runner-picks-1"));
      assertEquals("external", metrics.poolLabel("x/" + "y".repeat(100) + "-1"));
    } finally {
      kit.shutdownTestKit();
    }
  }
}
