package dev.rota.cluster.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.typesafe.config.ConfigFactory;
import dev.rota.cluster.agent.AgentEntity.Accepted;
import dev.rota.cluster.agent.AgentEntity.AgentDetails;
import dev.rota.cluster.agent.AgentEntity.Command;
import dev.rota.cluster.agent.AgentEntity.Denied;
import dev.rota.cluster.agent.AgentEntity.Done;
import dev.rota.cluster.agent.AgentEntity.ErrorCode;
import dev.rota.cluster.agent.AgentEntity.Extended;
import dev.rota.cluster.agent.AgentEntity.Granted;
import dev.rota.cluster.agent.AgentEntity.Rejected;
import dev.rota.cluster.agent.AgentEntity.Reply;
import dev.rota.cluster.agent.AgentEvents.Event;
import dev.rota.cluster.metrics.RotaMetrics;
import dev.rota.cluster.testing.MutableClock;
import dev.rota.core.model.ActivationKind;
import dev.rota.core.model.AgentConfigPatch;
import dev.rota.core.model.AgentState;
import dev.rota.core.model.ClaimSpec;
import dev.rota.core.model.FailureAction;
import dev.rota.core.model.Ids;
import dev.rota.core.model.RunnerMode;
import dev.rota.core.scheduling.AgentSchedule;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.LogCapturingExtension;
import org.apache.pekko.persistence.testkit.javadsl.EventSourcedBehaviorTestKit;
import org.apache.pekko.persistence.testkit.javadsl.EventSourcedBehaviorTestKit.CommandResultWithReply;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(LogCapturingExtension.class)
class AgentEntityTest {
  private static final Instant T0 = Instant.parse("2026-11-22T09:00:00Z");
  private static final AgentSettings SETTINGS =
      new AgentSettings(16, 300, Duration.ofHours(1), 100, Duration.ofMillis(200));
  private static final ActorTestKit TEST_KIT =
      ActorTestKit.create(
          "AgentEntityTest",
          EventSourcedBehaviorTestKit.config().withFallback(ConfigFactory.load()));

  /** rota.runner-health.retry-avoid-window in reference.conf. */
  private static final Duration RETRY_AVOID_WINDOW = Duration.ofSeconds(30);

  private MutableClock clock;
  private List<Long> changes;
  private EventSourcedBehaviorTestKit<Command, Event, AgentState> kit;

  @AfterAll
  static void shutdown() {
    TEST_KIT.shutdownTestKit();
  }

  @BeforeEach
  void setUp() {
    clock = new MutableClock(T0);
    changes = new ArrayList<>();
    kit =
        EventSourcedBehaviorTestKit.create(
            TEST_KIT.system(),
            AgentEntity.create(
                "a1", SETTINGS, (state, seqNr) -> changes.add(seqNr), clock, clock::nanos),
            EventSourcedBehaviorTestKit.enabledSerializationSettings());
    kit.clear();
  }

  private CommandResultWithReply<Command, Event, AgentState, Reply> register(
      AgentConfigPatch patch) {
    return kit.<Reply>runCommand(r -> new AgentEntity.Register(patch, r));
  }

  private AgentConfigPatch maxAttempts(int n) {
    return new AgentConfigPatch(null, null, null, null, null, n, null);
  }

  private Accepted notify(String type, String dedupeKey) {
    var result =
        kit.<Reply>runCommand(
            r ->
                new AgentEntity.Notify(
                    type, JsonNodeFactory.instance.objectNode().put("k", type), dedupeKey, r));
    return assertInstanceOf(Accepted.class, result.reply());
  }

  private Granted claim(RunnerMode mode) {
    var result =
        kit.<Reply>runCommand(
            r ->
                new AgentEntity.Claim(
                    new ClaimSpec("runner-1", mode, Set.of(), Duration.ZERO, 30), r));
    return assertInstanceOf(Granted.class, result.reply());
  }

  private Reply fail(String leaseId, FailureAction action, long snoozeSeconds) {
    return kit.<Reply>runCommand(
            r -> new AgentEntity.Fail(leaseId, "runner-1", action, "boom", snoozeSeconds, null, r))
        .reply();
  }

  @Test
  void registersWithDefaultsThenUpdatesOnlyGivenFields() {
    var created = register(AgentConfigPatch.empty());
    AgentDetails details = assertInstanceOf(AgentDetails.class, created.reply());
    assertTrue(details.created());
    assertInstanceOf(AgentEvents.AgentRegistered.class, created.event());
    assertEquals(100, created.state().config().maxInboxDepth());
    assertEquals(3, created.state().config().maxAttempts());
    assertEquals("a1", created.state().config().name());

    var updated =
        register(new AgentConfigPatch("bot", List.of("web", "code"), 5, null, null, null, null));
    assertFalse(assertInstanceOf(AgentDetails.class, updated.reply()).created());
    assertEquals(List.of("code", "web"), updated.state().config().capabilities());
    assertEquals(5, updated.state().config().priority());
    assertEquals(100, updated.state().config().maxInboxDepth());

    var same = register(AgentConfigPatch.empty());
    assertTrue(same.hasNoEvents());
  }

  @Test
  void refusesCommandsForUnknownAgent() {
    var get = kit.<Reply>runCommand(AgentEntity.Get::new);
    assertEquals(ErrorCode.NOT_FOUND, assertInstanceOf(Rejected.class, get.reply()).code());
    var n = kit.<Reply>runCommand(r -> new AgentEntity.Notify("t", null, null, r));
    assertEquals(ErrorCode.NOT_FOUND, assertInstanceOf(Rejected.class, n.reply()).code());
    assertTrue(n.hasNoEvents());
    var c =
        kit.<Reply>runCommand(
            r ->
                new AgentEntity.Claim(
                    new ClaimSpec("r", RunnerMode.HYBRID, Set.of(), Duration.ZERO, 30), r));
    assertEquals("not_registered", assertInstanceOf(Denied.class, c.reply()).reason());
  }

  @Test
  void acceptsNotificationAndDeduplicatesByKey() {
    register(AgentConfigPatch.empty());
    Accepted first = notify("mention", "p9");
    assertEquals(1, first.unread());
    assertFalse(first.duplicate());
    var again = kit.<Reply>runCommand(r -> new AgentEntity.Notify("mention", null, "p9", r));
    Accepted dup = assertInstanceOf(Accepted.class, again.reply());
    assertTrue(dup.duplicate());
    assertEquals(first.notificationId(), dup.notificationId());
    assertTrue(again.hasNoEvents());
    assertEquals(1, kit.getState().inbox().size());
  }

  @Test
  void dedupeKeyIsFreeAgainAfterReadAndWindow() {
    register(AgentConfigPatch.empty());
    Accepted first = notify("mention", "p9");
    Granted g = claim(RunnerMode.HYBRID);
    kit.<Reply>runCommand(
        r -> new AgentEntity.Complete(g.lease().leaseId(), g.lease().runnerId(), null, r));
    assertTrue(notify("mention", "p9").duplicate(), "still within the window");
    clock.advance(Duration.ofHours(2));
    Accepted later = notify("mention", "p9");
    assertFalse(later.duplicate());
    assertNotEquals(first.notificationId(), later.notificationId());
  }

  @Test
  void refusesNotificationWhenInboxFull() {
    register(new AgentConfigPatch(null, null, null, null, 2, null, null));
    notify("a", null);
    notify("b", null);
    var full = kit.<Reply>runCommand(r -> new AgentEntity.Notify("c", null, null, r));
    assertEquals(ErrorCode.INBOX_FULL, assertInstanceOf(Rejected.class, full.reply()).code());
    assertTrue(full.hasNoEvents());
  }

  @Test
  void grantsInboxLeaseCarryingAllUnread() {
    register(AgentConfigPatch.empty());
    notify("a", null);
    notify("b", null);
    var result =
        kit.<Reply>runCommand(
            r ->
                new AgentEntity.Claim(
                    new ClaimSpec("runner-1", RunnerMode.HYBRID, Set.of(), Duration.ZERO, 30), r));
    Granted g = assertInstanceOf(Granted.class, result.reply());
    assertEquals(ActivationKind.INBOX, g.lease().kind());
    assertEquals(2, g.notifications().size());
    assertEquals(1, g.lease().attempt());
    assertEquals(T0.plusSeconds(30), g.lease().expiresAt());
    assertEquals(Ids.agentOf(g.lease().leaseId()).orElseThrow(), "a1");
    assertEquals(g.lease(), result.stateOfType(AgentState.class).lease());
    assertEquals(new AgentEvents.LeaseGranted(g.lease()), result.event());
  }

  @Test
  void anActivationCarriesAtMostTheConfiguredCountAndBytesOldestFirst() {
    var limited =
        EventSourcedBehaviorTestKit.<Command, Event, AgentState>create(
            TEST_KIT.system(),
            AgentEntity.create(
                "a2",
                new AgentSettings(
                    16, 300, Duration.ofHours(1), 100, Duration.ofMillis(200), 3, 400),
                (state, seqNr) -> {},
                clock,
                clock::nanos),
            EventSourcedBehaviorTestKit.enabledSerializationSettings());
    limited.<Reply>runCommand(r -> new AgentEntity.Register(AgentConfigPatch.empty(), r));
    for (int i = 0; i < 5; i++) {
      int n = i;
      limited.<Reply>runCommand(
          r ->
              new AgentEntity.Notify(
                  "t", JsonNodeFactory.instance.objectNode().put("n", n), null, r));
    }
    Granted first =
        assertInstanceOf(
            Granted.class,
            limited
                .<Reply>runCommand(
                    r ->
                        new AgentEntity.Claim(
                            new ClaimSpec("r", RunnerMode.HYBRID, Set.of(), Duration.ZERO, 30), r))
                .reply());
    assertEquals(3, first.notifications().size());
    assertEquals(0, first.notifications().get(0).payload().get("n").asInt());
    assertTrue(first.more());
    limited.<Reply>runCommand(
        r -> new AgentEntity.Complete(first.lease().leaseId(), first.lease().runnerId(), null, r));
    assertEquals(2, limited.getState().inbox().size());

    // A large payload: the byte budget (400) lets only the first go, however large it is.
    String big = "x".repeat(500);
    for (int i = 0; i < 2; i++) {
      limited.<Reply>runCommand(
          r ->
              new AgentEntity.Notify(
                  "t", JsonNodeFactory.instance.objectNode().put("big", big), null, r));
    }
    Granted second =
        assertInstanceOf(
            Granted.class,
            limited
                .<Reply>runCommand(
                    r ->
                        new AgentEntity.Claim(
                            new ClaimSpec("r", RunnerMode.HYBRID, Set.of(), Duration.ZERO, 30), r))
                .reply());
    assertEquals(2, second.notifications().size(), "the two small ones left, not the big one");
    assertTrue(second.more());
    limited.<Reply>runCommand(
        r ->
            new AgentEntity.Complete(second.lease().leaseId(), second.lease().runnerId(), null, r));
    Granted third =
        assertInstanceOf(
            Granted.class,
            limited
                .<Reply>runCommand(
                    r ->
                        new AgentEntity.Claim(
                            new ClaimSpec("r", RunnerMode.HYBRID, Set.of(), Duration.ZERO, 30), r))
                .reply());
    assertEquals(1, third.notifications().size());
    assertTrue(third.more());
  }

  @Test
  void aDenialCarriesTheScheduleRowNotTheState() {
    register(AgentConfigPatch.empty());
    notify("t", null);
    claim(RunnerMode.HYBRID);
    var second =
        kit.<Reply>runCommand(
            r ->
                new AgentEntity.Claim(
                    new ClaimSpec("runner-2", RunnerMode.HYBRID, Set.of(), Duration.ZERO, 30), r));
    Denied denied = assertInstanceOf(Denied.class, second.reply());
    assertEquals(AgentSchedule.of(kit.getState()), denied.schedule());
    assertTrue(denied.registered());
  }

  @Test
  void deniesSecondClaimWhileLeased() {
    register(AgentConfigPatch.empty());
    claim(RunnerMode.EXPLORATION);
    var second =
        kit.<Reply>runCommand(
            r ->
                new AgentEntity.Claim(
                    new ClaimSpec("runner-2", RunnerMode.HYBRID, Set.of(), Duration.ZERO, 30), r));
    assertEquals("leased", assertInstanceOf(Denied.class, second.reply()).reason());
    assertTrue(second.hasNoEvents());
  }

  @Test
  void deniesByModeAndCapabilities() {
    register(new AgentConfigPatch(null, List.of("code"), null, null, null, null, null));
    var noCaps =
        kit.<Reply>runCommand(
            r ->
                new AgentEntity.Claim(
                    new ClaimSpec("r", RunnerMode.HYBRID, Set.of(), Duration.ZERO, 30), r));
    assertEquals("capabilities", assertInstanceOf(Denied.class, noCaps.reply()).reason());
    var inboxOnly =
        kit.<Reply>runCommand(
            r ->
                new AgentEntity.Claim(
                    new ClaimSpec("r", RunnerMode.NOTIFICATION, Set.of("code"), Duration.ZERO, 30),
                    r));
    assertEquals("no_inbox", assertInstanceOf(Denied.class, inboxOnly.reply()).reason());
    notify("a", null);
    var exploring =
        kit.<Reply>runCommand(
            r ->
                new AgentEntity.Claim(
                    new ClaimSpec("r", RunnerMode.EXPLORATION, Set.of("code"), Duration.ZERO, 30),
                    r));
    assertEquals("has_inbox", assertInstanceOf(Denied.class, exploring.reply()).reason());
  }

  @Test
  void completionReadsCarriedNotificationsAndKeepsLaterOnes() {
    register(AgentConfigPatch.empty());
    notify("a", null);
    Granted g = claim(RunnerMode.HYBRID);
    clock.advance(Duration.ofSeconds(5));
    Accepted midway = notify("b", null);
    var done =
        kit.<Reply>runCommand(
            r -> new AgentEntity.Complete(g.lease().leaseId(), g.lease().runnerId(), null, r));
    assertInstanceOf(Done.class, done.reply());
    AgentState s = done.state();
    assertNull(s.lease());
    assertEquals(1, s.activationCount());
    assertEquals(T0.plusSeconds(5), s.lastActivatedAt());
    assertEquals(
        List.of(midway.notificationId()), s.inbox().stream().map(n -> n.notificationId()).toList());
    assertEquals(ActivationKind.INBOX, claim(RunnerMode.HYBRID).lease().kind());
  }

  @Test
  void measuresActivationsFromGrantToTheRunnersReportButNotExpiries() {
    Timer durations =
        RotaMetrics.get(TEST_KIT.system()).registry().get("rota.activation.duration").timer();
    long countBefore = durations.count();
    double secondsBefore = durations.totalTime(TimeUnit.SECONDS);
    register(AgentConfigPatch.empty());
    notify("a", null);
    Granted completed = claim(RunnerMode.HYBRID);
    clock.advance(Duration.ofSeconds(7));
    kit.<Reply>runCommand(
        r ->
            new AgentEntity.Complete(
                completed.lease().leaseId(), completed.lease().runnerId(), null, r));
    Granted failed = claim(RunnerMode.HYBRID);
    clock.advance(Duration.ofSeconds(3));
    fail(failed.lease().leaseId(), FailureAction.RETRY, 0);
    clock.advance(RETRY_AVOID_WINDOW);
    Granted expired = claim(RunnerMode.HYBRID);
    clock.advance(Duration.ofSeconds(31));
    kit.<Reply>runCommand(
        r -> new AgentEntity.Heartbeat(expired.lease().leaseId(), expired.lease().runnerId(), r));

    assertEquals(countBefore + 2, durations.count());
    assertEquals(secondsBefore + 10, durations.totalTime(TimeUnit.SECONDS), 0.001);
  }

  @Test
  void refusesCompletionWithStaleFencingToken() {
    register(AgentConfigPatch.empty());
    notify("a", null);
    Granted first = claim(RunnerMode.HYBRID);
    clock.advance(Duration.ofSeconds(31));
    var late =
        kit.<Reply>runCommand(
            r ->
                new AgentEntity.Complete(
                    first.lease().leaseId(), first.lease().runnerId(), null, r));
    assertEquals(ErrorCode.LEASE_LOST, assertInstanceOf(Rejected.class, late.reply()).code());
    assertInstanceOf(AgentEvents.LeaseExpired.class, late.event());
    clock.advance(RETRY_AVOID_WINDOW);
    Granted second = claim(RunnerMode.HYBRID);
    assertTrue(second.lease().fencingToken() > first.lease().fencingToken());
    assertEquals(2, second.lease().attempt());
    var stale =
        kit.<Reply>runCommand(
            r ->
                new AgentEntity.Complete(
                    first.lease().leaseId(), first.lease().runnerId(), null, r));
    assertEquals(ErrorCode.LEASE_LOST, assertInstanceOf(Rejected.class, stale.reply()).code());
    assertTrue(stale.hasNoEvents());
    var staleBeat =
        kit.<Reply>runCommand(
            r -> new AgentEntity.Heartbeat(first.lease().leaseId(), first.lease().runnerId(), r));
    assertEquals(ErrorCode.LEASE_LOST, assertInstanceOf(Rejected.class, staleBeat.reply()).code());
    assertEquals(second.lease(), kit.getState().lease());
  }

  @Test
  void refusesReportsByARunnerTheLeaseWasNotGrantedTo() {
    register(AgentConfigPatch.empty());
    notify("a", null);
    Granted g = claim(RunnerMode.HYBRID);
    String leaseId = g.lease().leaseId();

    var beat = kit.<Reply>runCommand(r -> new AgentEntity.Heartbeat(leaseId, "intruder", r));
    var done = kit.<Reply>runCommand(r -> new AgentEntity.Complete(leaseId, "intruder", null, r));
    var failed =
        kit.<Reply>runCommand(
            r -> new AgentEntity.Fail(leaseId, "intruder", FailureAction.DISCARD, "x", 0, null, r));
    var anonymous = kit.<Reply>runCommand(r -> new AgentEntity.Complete(leaseId, null, null, r));

    for (var result : List.of(beat, done, failed, anonymous)) {
      Rejected rejected = assertInstanceOf(Rejected.class, result.reply());
      assertEquals(ErrorCode.LEASE_NOT_HELD, rejected.code());
      assertTrue(result.hasNoEvents(), result.toString());
    }
    assertEquals(g.lease(), kit.getState().lease());
    assertEquals(1, kit.getState().inbox().size());
    assertInstanceOf(
        Done.class,
        kit.<Reply>runCommand(r -> new AgentEntity.Complete(leaseId, "runner-1", null, r)).reply());
  }

  @Test
  void anotherRunnersReportOnAnExpiredLeaseChangesNothing() {
    register(AgentConfigPatch.empty());
    Granted g = claim(RunnerMode.EXPLORATION);
    clock.advance(Duration.ofSeconds(31));

    var late =
        kit.<Reply>runCommand(r -> new AgentEntity.Heartbeat(g.lease().leaseId(), "intruder", r));

    assertEquals(ErrorCode.LEASE_NOT_HELD, assertInstanceOf(Rejected.class, late.reply()).code());
    assertTrue(late.hasNoEvents());
  }

  @Test
  void heartbeatExtendsLeaseByItsOwnLength() {
    register(AgentConfigPatch.empty());
    Granted g = claim(RunnerMode.EXPLORATION);
    clock.advance(Duration.ofSeconds(20));
    var beat =
        kit.<Reply>runCommand(
            r -> new AgentEntity.Heartbeat(g.lease().leaseId(), g.lease().runnerId(), r));
    Extended e = assertInstanceOf(Extended.class, beat.reply());
    assertEquals(T0.plusSeconds(50), e.expiresAt());
    assertEquals(T0.plusSeconds(50), beat.state().lease().expiresAt());
    clock.advance(Duration.ofSeconds(20));
    var done =
        kit.<Reply>runCommand(
            r -> new AgentEntity.Complete(g.lease().leaseId(), g.lease().runnerId(), null, r));
    assertInstanceOf(Done.class, done.reply());
  }

  @Test
  void aRetryAvoidsTheRunnerThatFailedItWithinTheWindow() {
    register(AgentConfigPatch.empty());
    notify("a", null);
    Granted first = claim(RunnerMode.HYBRID);
    clock.advance(Duration.ofSeconds(2));
    assertInstanceOf(Done.class, fail(first.lease().leaseId(), FailureAction.RETRY, 0));
    assertEquals("runner-1", kit.getState().history().get(0).details().get("runnerId"));

    var again =
        kit.<Reply>runCommand(
            r ->
                new AgentEntity.Claim(
                    new ClaimSpec("runner-1", RunnerMode.HYBRID, Set.of(), Duration.ZERO, 30), r));
    assertEquals(
        AgentEntity.AVOIDING_RUNNER, assertInstanceOf(Denied.class, again.reply()).reason());
    assertTrue(again.events().isEmpty());
    var other =
        kit.<Reply>runCommand(
            r ->
                new AgentEntity.Claim(
                    new ClaimSpec("runner-2", RunnerMode.HYBRID, Set.of(), Duration.ZERO, 30), r));
    Granted second = assertInstanceOf(Granted.class, other.reply());
    assertEquals(2, second.lease().attempt());

    // runner-2's lease expires: now runner-2 is avoided and runner-1 may take it.
    clock.advance(Duration.ofSeconds(31));
    var expired =
        kit.<Reply>runCommand(r -> new AgentEntity.ExpireLease(second.lease().leaseId(), r));
    assertInstanceOf(AgentEvents.LeaseExpired.class, expired.event());
    assertEquals("runner-2", kit.getState().history().get(0).details().get("runnerId"));
    var avoided =
        kit.<Reply>runCommand(
            r ->
                new AgentEntity.Claim(
                    new ClaimSpec("runner-2", RunnerMode.HYBRID, Set.of(), Duration.ZERO, 30), r));
    assertInstanceOf(Denied.class, avoided.reply());
    clock.advance(RETRY_AVOID_WINDOW);
    var afterWindow =
        kit.<Reply>runCommand(
            r ->
                new AgentEntity.Claim(
                    new ClaimSpec("runner-2", RunnerMode.HYBRID, Set.of(), Duration.ZERO, 30), r));
    assertEquals(3, assertInstanceOf(Granted.class, afterWindow.reply()).lease().attempt());
  }

  @Test
  void retryConsumesAttemptsThenDeadLetters() {
    register(maxAttempts(2));
    Accepted n = notify("a", null);
    Granted g1 = claim(RunnerMode.HYBRID);
    assertInstanceOf(Done.class, fail(g1.lease().leaseId(), FailureAction.RETRY, 0));
    assertEquals(1, kit.getState().inbox().get(0).attempts());
    clock.advance(RETRY_AVOID_WINDOW); // the same runner may retry once the window is over
    Granted g2 = claim(RunnerMode.HYBRID);
    assertEquals(2, g2.lease().attempt());
    assertInstanceOf(Done.class, fail(g2.lease().leaseId(), FailureAction.RETRY, 0));
    AgentState s = kit.getState();
    assertTrue(s.inbox().isEmpty());
    assertEquals(1, s.deadLetters().size());
    assertEquals(n.notificationId(), s.deadLetters().get(0).notification().notificationId());
    assertEquals(2, s.deadLetters().get(0).notification().attempts());
  }

  @Test
  void expiredLeaseCountsAsRetry() {
    register(AgentConfigPatch.empty());
    notify("a", null);
    Granted g = claim(RunnerMode.HYBRID);
    clock.advance(Duration.ofSeconds(31));
    var expire = kit.<Reply>runCommand(r -> new AgentEntity.ExpireLease(g.lease().leaseId(), r));
    assertInstanceOf(Done.class, expire.reply());
    assertInstanceOf(AgentEvents.LeaseExpired.class, expire.event());
    assertNull(expire.state().lease());
    assertEquals(1, expire.state().inbox().get(0).attempts());
  }

  @Test
  void aLeaseHandedToAHostWhoseClockIsAheadIsNotEndedEarly() {
    register(AgentConfigPatch.empty());
    notify("a", null);
    clock.skew(Duration.ofSeconds(-30));
    Granted g = claim(RunnerMode.HYBRID);
    // The granting node's clock was 30 s behind: by a correct clock the lease's expiresAt has
    // already passed when the agent recovers on a node whose clock is right.
    clock.skew(Duration.ofSeconds(30));
    assertFalse(g.lease().expiresAt().isAfter(clock.instant()));
    kit.restart();

    var early = kit.<Reply>runCommand(r -> new AgentEntity.ExpireLease(g.lease().leaseId(), r));
    assertTrue(early.hasNoEvents());
    assertEquals(30_000, assertInstanceOf(AgentEntity.LeaseLive.class, early.reply()).leftMillis());
    var second =
        kit.<Reply>runCommand(
            r ->
                new AgentEntity.Claim(
                    new ClaimSpec("runner-2", RunnerMode.HYBRID, Set.of(), Duration.ZERO, 30), r));
    assertEquals("leased", assertInstanceOf(Denied.class, second.reply()).reason());

    clock.advance(Duration.ofSeconds(29));
    var stillLive = kit.<Reply>runCommand(r -> new AgentEntity.ExpireLease(g.lease().leaseId(), r));
    assertInstanceOf(AgentEntity.LeaseLive.class, stillLive.reply());
    clock.advance(Duration.ofSeconds(2));
    var over = kit.<Reply>runCommand(r -> new AgentEntity.ExpireLease(g.lease().leaseId(), r));
    assertInstanceOf(Done.class, over.reply());
    assertInstanceOf(AgentEvents.LeaseExpired.class, over.event());
  }

  @Test
  void aWallClockSetForwardDoesNotEndALease() {
    register(AgentConfigPatch.empty());
    notify("a", null);
    Granted g = claim(RunnerMode.HYBRID);
    clock.skew(Duration.ofHours(1));
    var beat =
        kit.<Reply>runCommand(r -> new AgentEntity.Heartbeat(g.lease().leaseId(), "runner-1", r));
    assertInstanceOf(AgentEntity.Extended.class, beat.reply());
    var done =
        kit.<Reply>runCommand(
            r -> new AgentEntity.Complete(g.lease().leaseId(), "runner-1", null, r));
    assertInstanceOf(Done.class, done.reply());
  }

  @Test
  void expiringALeaseThatIsNoLongerCurrentSaysSo() {
    register(AgentConfigPatch.empty());
    notify("a", null);
    Granted g = claim(RunnerMode.HYBRID);
    kit.<Reply>runCommand(r -> new AgentEntity.Complete(g.lease().leaseId(), "runner-1", null, r));
    var gone = kit.<Reply>runCommand(r -> new AgentEntity.ExpireLease(g.lease().leaseId(), r));
    assertTrue(gone.hasNoEvents());
    assertEquals(
        g.lease().leaseId(), assertInstanceOf(AgentEntity.LeaseGone.class, gone.reply()).leaseId());
  }

  @Test
  void expireLeaseIgnoresLiveOrOtherLeases() {
    register(AgentConfigPatch.empty());
    Granted g = claim(RunnerMode.EXPLORATION);
    var early = kit.<Reply>runCommand(r -> new AgentEntity.ExpireLease(g.lease().leaseId(), r));
    assertTrue(early.hasNoEvents());
    var other = kit.<Reply>runCommand(r -> new AgentEntity.ExpireLease("other", r));
    assertTrue(other.hasNoEvents());
    assertEquals(g.lease(), kit.getState().lease());
  }

  @Test
  void cancelAndDiscardDeadLetterAtOnce() {
    register(AgentConfigPatch.empty());
    notify("a", null);
    Granted g = claim(RunnerMode.HYBRID);
    fail(g.lease().leaseId(), FailureAction.CANCEL, 0);
    assertEquals(1, kit.getState().deadLetters().size());
    assertTrue(kit.getState().deadLetters().get(0).reason().startsWith("cancel"));
    notify("b", null);
    Granted g2 = claim(RunnerMode.HYBRID);
    fail(g2.lease().leaseId(), FailureAction.DISCARD, 0);
    assertEquals(2, kit.getState().deadLetters().size());
    assertTrue(kit.getState().inbox().isEmpty());
  }

  @Test
  void snoozeConsumesNoAttemptAndMakesAgentIneligible() {
    register(AgentConfigPatch.empty());
    notify("a", null);
    Granted g = claim(RunnerMode.HYBRID);
    fail(g.lease().leaseId(), FailureAction.SNOOZE, 60);
    AgentState s = kit.getState();
    assertEquals(0, s.inbox().get(0).attempts());
    assertEquals(T0.plusSeconds(60), s.snoozedUntil());
    var denied =
        kit.<Reply>runCommand(
            r ->
                new AgentEntity.Claim(
                    new ClaimSpec("r", RunnerMode.HYBRID, Set.of(), Duration.ZERO, 30), r));
    assertEquals("snoozed", assertInstanceOf(Denied.class, denied.reply()).reason());
    clock.advance(Duration.ofSeconds(61));
    assertEquals(1, claim(RunnerMode.HYBRID).lease().attempt());
  }

  @Test
  void aReleaseFreesTheAgentAtOnceAndIsStoredAsTheSnoozeOfZeroItAlwaysWas() {
    register(AgentConfigPatch.empty());
    notify("a", null);
    Granted g = claim(RunnerMode.HYBRID);
    var intruder =
        kit.<Reply>runCommand(
            r -> new AgentEntity.Release(g.lease().leaseId(), "intruder", "never took it", r));
    assertEquals(
        ErrorCode.LEASE_NOT_HELD, assertInstanceOf(Rejected.class, intruder.reply()).code());
    assertTrue(intruder.hasNoEvents());

    var released =
        kit.<Reply>runCommand(r -> AgentEntity.Release.of(g, "runner never took it: gone", r));
    assertInstanceOf(Done.class, released.reply());
    var event = released.eventOfType(AgentEvents.ActivationFailed.class);
    assertEquals(FailureAction.SNOOZE, event.action());
    assertEquals("runner never took it: gone", event.error());
    assertEquals(T0, event.snoozedUntil());
    AgentState s = kit.getState();
    assertNull(s.lease());
    assertEquals(0, s.inbox().get(0).attempts());
    assertEquals(1, claim(RunnerMode.HYBRID).lease().attempt());
  }

  @Test
  void redrivePutsDeadLetterBackWithFreshAttempts() {
    register(maxAttempts(1));
    notify("a", null);
    Granted g = claim(RunnerMode.HYBRID);
    fail(g.lease().leaseId(), FailureAction.RETRY, 0);
    String deadId = kit.getState().deadLetters().get(0).id();
    assertEquals("a1", Ids.agentOf(deadId).orElseThrow());
    var redrive = kit.<Reply>runCommand(r -> new AgentEntity.Redrive(deadId, r));
    assertInstanceOf(Done.class, redrive.reply());
    assertTrue(redrive.state().deadLetters().isEmpty());
    assertEquals(0, redrive.state().inbox().get(0).attempts());
    var unknown = kit.<Reply>runCommand(r -> new AgentEntity.Redrive(deadId, r));
    assertEquals(ErrorCode.NOT_FOUND, assertInstanceOf(Rejected.class, unknown.reply()).code());
  }

  @Test
  void discardRemovesDeadLetterForGoodAndRecordsIt() {
    register(maxAttempts(1));
    notify("a", null);
    Granted g = claim(RunnerMode.HYBRID);
    fail(g.lease().leaseId(), FailureAction.RETRY, 0);
    notify("b", null);
    AgentState before = kit.getState();
    assertEquals(1, before.inbox().size());
    String deadId = before.deadLetters().get(0).id();
    String notificationId = before.deadLetters().get(0).notification().notificationId();
    clock.advance(Duration.ofSeconds(5));

    var discard = kit.<Reply>runCommand(r -> new AgentEntity.Discard(deadId, r));
    assertEquals(new Done(T0.plusSeconds(5)), discard.reply());
    assertEquals(
        List.of(new AgentEvents.DeadLetterDiscarded(deadId, T0.plusSeconds(5))), discard.events());
    assertTrue(discard.state().deadLetters().isEmpty());
    assertEquals(before.inbox(), discard.state().inbox());
    var entry = discard.state().history().get(0);
    assertEquals("dead_letter.discarded", entry.type());
    assertEquals(T0.plusSeconds(5), entry.at());
    assertEquals(deadId, entry.details().get("deadLetterId"));
    assertEquals(notificationId, entry.details().get("notificationId"));

    kit.restart();
    assertTrue(kit.getState().deadLetters().isEmpty());
    var again = kit.<Reply>runCommand(r -> new AgentEntity.Discard(deadId, r));
    assertEquals(ErrorCode.NOT_FOUND, assertInstanceOf(Rejected.class, again.reply()).code());
    assertTrue(again.events().isEmpty());
    var redrive = kit.<Reply>runCommand(r -> new AgentEntity.Redrive(deadId, r));
    assertEquals(ErrorCode.NOT_FOUND, assertInstanceOf(Rejected.class, redrive.reply()).code());
  }

  @Test
  void discardOnAnUnregisteredAgentIsNotFound() {
    var discard =
        kit.<Reply>runCommand(r -> new AgentEntity.Discard(Ids.deadLetterId("a1", "n1"), r));
    assertEquals(ErrorCode.NOT_FOUND, assertInstanceOf(Rejected.class, discard.reply()).code());
    assertTrue(discard.events().isEmpty());
  }

  @Test
  void pausedAgentIsNotClaimed() {
    register(AgentConfigPatch.empty());
    var paused = kit.<Reply>runCommand(r -> new AgentEntity.SetPaused(true, r));
    assertEquals("paused", assertInstanceOf(AgentDetails.class, paused.reply()).agent().status(T0));
    var denied =
        kit.<Reply>runCommand(
            r ->
                new AgentEntity.Claim(
                    new ClaimSpec("r", RunnerMode.HYBRID, Set.of(), Duration.ZERO, 30), r));
    assertEquals("paused", assertInstanceOf(Denied.class, denied.reply()).reason());
    kit.<Reply>runCommand(r -> new AgentEntity.SetPaused(false, r));
    claim(RunnerMode.HYBRID);
  }

  @Test
  void minActivationIntervalDelaysExploration() {
    register(new AgentConfigPatch(null, null, null, 60L, null, null, null));
    Granted g = claim(RunnerMode.EXPLORATION);
    kit.<Reply>runCommand(
        r -> new AgentEntity.Complete(g.lease().leaseId(), g.lease().runnerId(), null, r));
    var denied =
        kit.<Reply>runCommand(
            r ->
                new AgentEntity.Claim(
                    new ClaimSpec("r", RunnerMode.EXPLORATION, Set.of(), Duration.ZERO, 30), r));
    assertEquals("min_interval", assertInstanceOf(Denied.class, denied.reply()).reason());
    notify("a", null);
    assertEquals(ActivationKind.INBOX, claim(RunnerMode.HYBRID).lease().kind());
  }

  @Test
  void deregisterConflictsWhileLeasedThenForgetsAgent() {
    register(AgentConfigPatch.empty());
    Granted g = claim(RunnerMode.EXPLORATION);
    var conflict = kit.<Reply>runCommand(AgentEntity.Deregister::new);
    assertEquals(ErrorCode.CONFLICT, assertInstanceOf(Rejected.class, conflict.reply()).code());
    kit.<Reply>runCommand(
        r -> new AgentEntity.Complete(g.lease().leaseId(), g.lease().runnerId(), null, r));
    var gone = kit.<Reply>runCommand(AgentEntity.Deregister::new);
    assertInstanceOf(Done.class, gone.reply());
    assertFalse(gone.state().registered());
    var get = kit.<Reply>runCommand(AgentEntity.Get::new);
    assertEquals(ErrorCode.NOT_FOUND, assertInstanceOf(Rejected.class, get.reply()).code());
  }

  @Test
  void notifiesListenerWithSequenceNumbers() {
    register(AgentConfigPatch.empty());
    notify("a", null);
    assertEquals(List.of(1L, 2L), changes);
  }

  @Test
  void recoversStateAfterRestart() {
    register(AgentConfigPatch.empty());
    notify("a", null);
    Granted g = claim(RunnerMode.HYBRID);
    var restarted = kit.restart();
    assertEquals(g.lease(), restarted.state().lease());
    assertEquals(1, restarted.state().inbox().size());
  }

  @Test
  void historyIsNewestFirst() {
    register(AgentConfigPatch.empty());
    notify("a", null);
    List<String> types = kit.getState().history().stream().map(h -> h.type()).toList();
    assertEquals(List.of("notification.accepted", "agent.registered"), types);
  }
}
