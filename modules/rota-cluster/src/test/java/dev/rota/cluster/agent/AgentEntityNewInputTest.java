package dev.rota.cluster.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.cbor.databind.CBORMapper;
import com.typesafe.config.ConfigFactory;
import dev.rota.cluster.agent.AgentEntity.Accepted;
import dev.rota.cluster.agent.AgentEntity.Command;
import dev.rota.cluster.agent.AgentEntity.Denied;
import dev.rota.cluster.agent.AgentEntity.Done;
import dev.rota.cluster.agent.AgentEntity.ErrorCode;
import dev.rota.cluster.agent.AgentEntity.Extended;
import dev.rota.cluster.agent.AgentEntity.Granted;
import dev.rota.cluster.agent.AgentEntity.NewInputs;
import dev.rota.cluster.agent.AgentEntity.Rejected;
import dev.rota.cluster.agent.AgentEntity.Reply;
import dev.rota.cluster.agent.AgentEvents.Event;
import dev.rota.cluster.agent.AgentEvents.InboxSummary;
import dev.rota.cluster.agent.AgentEvents.LeaseInterrupted;
import dev.rota.cluster.agent.AgentEvents.NotificationReceived;
import dev.rota.cluster.agent.AgentEvents.NotificationRejected;
import dev.rota.cluster.agent.AgentEvents.NotificationSteered;
import dev.rota.cluster.testing.MutableClock;
import dev.rota.core.model.AgentConfig;
import dev.rota.core.model.AgentConfigPatch;
import dev.rota.core.model.AgentState;
import dev.rota.core.model.ClaimSpec;
import dev.rota.core.model.FailureAction;
import dev.rota.core.model.NewInput;
import dev.rota.core.model.NewInputState;
import dev.rota.core.model.Notification;
import dev.rota.core.model.RunnerMode;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.LogCapturingExtension;
import org.apache.pekko.actor.testkit.typed.javadsl.SerializationTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.persistence.testkit.javadsl.EventSourcedBehaviorTestKit;
import org.apache.pekko.serialization.Serialization;
import org.apache.pekko.serialization.SerializationExtension;
import org.apache.pekko.serialization.Serializers;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * New input during a turn, one policy at a time: what a notification does to the lease in flight,
 * what the runner is told, and that the agent decides it in one write. Serialization checks are on,
 * so every new command, reply, event and the state pass through the node's serializer.
 */
@ExtendWith(LogCapturingExtension.class)
class AgentEntityNewInputTest {
  private static final Instant T0 = Instant.parse("2026-11-22T09:00:00Z");
  private static final AgentSettings SETTINGS =
      new AgentSettings(16, 300, Duration.ofHours(1), 100, Duration.ofMillis(200));
  private static final ActorTestKit TEST_KIT =
      ActorTestKit.create(
          "AgentEntityNewInputTest",
          EventSourcedBehaviorTestKit.config().withFallback(ConfigFactory.load()));

  private MutableClock clock;
  private EventSourcedBehaviorTestKit<Command, Event, AgentState> kit;

  @AfterAll
  static void shutdown() {
    TEST_KIT.shutdownTestKit();
  }

  @BeforeEach
  void setUp() {
    clock = new MutableClock(T0);
    kit =
        EventSourcedBehaviorTestKit.create(
            TEST_KIT.system(),
            AgentEntity.create("a1", SETTINGS, (state, seqNr) -> {}, clock, clock::nanos),
            EventSourcedBehaviorTestKit.enabledSerializationSettings());
    kit.clear();
  }

  private void register(NewInput policy, Long debounceMs, Long debounceMaxMs) {
    kit.<Reply>runCommand(
        r ->
            new AgentEntity.Register(
                new AgentConfigPatch(
                    null,
                    null,
                    null,
                    null,
                    null,
                    null,
                    null,
                    null,
                    policy,
                    debounceMs,
                    debounceMaxMs),
                r));
  }

  private Reply notify(String type, NewInput override) {
    return kit.<Reply>runCommand(
            r ->
                new AgentEntity.Notify(
                    type, JsonNodeFactory.instance.objectNode().put("k", type), null, override, r))
        .reply();
  }

  private Granted claim() {
    var result =
        kit.<Reply>runCommand(
            r ->
                new AgentEntity.Claim(
                    new ClaimSpec("runner-1", RunnerMode.HYBRID, Set.of(), Duration.ZERO, 30), r));
    return assertInstanceOf(Granted.class, result.reply());
  }

  private Reply heartbeat(String leaseId) {
    return kit.<Reply>runCommand(r -> new AgentEntity.Heartbeat(leaseId, "runner-1", r)).reply();
  }

  private Reply complete(String leaseId) {
    return kit.<Reply>runCommand(
            r ->
                new AgentEntity.Complete(
                    leaseId, "runner-1", JsonNodeFactory.instance.objectNode(), r))
        .reply();
  }

  private Reply input(String leaseId) {
    return kit.<Reply>runCommand(r -> new AgentEntity.AwaitInput(leaseId, "runner-1", 0, r))
        .reply();
  }

  private static List<String> types(List<Notification> notifications) {
    return notifications.stream().map(Notification::type).toList();
  }

  @Test
  void queueLeavesTheRunningTurnAloneAndTheNotificationForTheNext() {
    register(null, null, null);
    notify("first", null);
    Granted lease = claim();
    var second = kit.<Reply>runCommand(r -> new AgentEntity.Notify("second", null, null, null, r));
    Accepted accepted = assertInstanceOf(Accepted.class, second.reply());
    assertFalse(accepted.steered());
    assertFalse(accepted.interrupted());
    assertInstanceOf(NotificationReceived.class, second.event());
    assertEquals(1, second.state().lease().notificationIds().size());
    assertEquals(
        List.of(),
        assertInstanceOf(Extended.class, heartbeat(lease.lease().leaseId())).notifications());
    assertInstanceOf(Done.class, complete(lease.lease().leaseId()));
    assertEquals(List.of("second"), types(kit.getState().inbox()));
  }

  @Test
  void steerJoinsTheRunningLeaseAndItsCompletionCompletesIt() {
    register(NewInput.STEER, null, null);
    notify("first", null);
    Granted lease = claim();
    String leaseId = lease.lease().leaseId();

    var result = kit.<Reply>runCommand(r -> new AgentEntity.Notify("second", null, null, null, r));
    Accepted accepted = assertInstanceOf(Accepted.class, result.reply());
    assertTrue(accepted.steered());
    assertEquals(2, result.events().size());
    assertInstanceOf(NotificationReceived.class, result.events().get(0));
    NotificationSteered steered =
        assertInstanceOf(NotificationSteered.class, result.events().get(1));
    assertEquals(accepted.notificationId(), steered.notificationId());
    assertEquals(leaseId, steered.leaseId());
    assertEquals(List.of(accepted.notificationId()), result.state().lease().steeredIds());
    assertEquals("notification.steered", result.state().history().get(0).type());

    NewInputs given = assertInstanceOf(NewInputs.class, input(leaseId));
    assertEquals(List.of("second"), types(given.notifications()));
    assertFalse(given.interrupted());
    // Given once: neither the next poll nor the heartbeat gives it again.
    assertEquals(List.of(), assertInstanceOf(NewInputs.class, input(leaseId)).notifications());
    assertEquals(List.of(), assertInstanceOf(Extended.class, heartbeat(leaseId)).notifications());

    assertInstanceOf(Done.class, complete(leaseId));
    assertEquals(List.of(), kit.getState().inbox());
  }

  @Test
  void theHeartbeatAnswerCarriesNotificationsSteeredSinceTheLastAnswer() {
    register(NewInput.STEER, null, null);
    notify("first", null);
    String leaseId = claim().lease().leaseId();
    notify("second", null);
    notify("third", null);
    Extended extended = assertInstanceOf(Extended.class, heartbeat(leaseId));
    assertEquals(List.of("second", "third"), types(extended.notifications()));
    assertEquals(List.of(), assertInstanceOf(Extended.class, heartbeat(leaseId)).notifications());
  }

  @Test
  void aWaitingInputPollIsAnsweredWhenANotificationIsSteered() {
    register(NewInput.STEER, null, null);
    notify("first", null);
    String leaseId = claim().lease().leaseId();
    TestProbe<Reply> runner = TEST_KIT.createTestProbe();
    kit.runCommand(new AgentEntity.AwaitInput(leaseId, "runner-1", 30_000, runner.ref()));
    runner.expectNoMessage(Duration.ofMillis(50));
    notify("second", null);
    NewInputs inputs = runner.expectMessageClass(NewInputs.class);
    assertEquals(List.of("second"), types(inputs.notifications()));
  }

  @Test
  void interruptEndsTheLeaseReturnsItsNotificationsUnreadAndCountsNoAttempt() {
    register(NewInput.INTERRUPT, null, null);
    notify("first", null);
    Granted lease = claim();
    String leaseId = lease.lease().leaseId();
    TestProbe<Reply> runner = TEST_KIT.createTestProbe();
    kit.runCommand(new AgentEntity.AwaitInput(leaseId, "runner-1", 30_000, runner.ref()));

    var result = kit.<Reply>runCommand(r -> new AgentEntity.Notify("second", null, null, null, r));
    Accepted accepted = assertInstanceOf(Accepted.class, result.reply());
    assertTrue(accepted.interrupted());
    assertEquals(2, result.events().size());
    assertInstanceOf(NotificationReceived.class, result.events().get(0));
    LeaseInterrupted interrupted = assertInstanceOf(LeaseInterrupted.class, result.events().get(1));
    assertEquals(leaseId, interrupted.leaseId());
    assertEquals(2, interrupted.inboxAfter().unread());
    assertNull(result.state().lease());
    assertEquals(List.of("first", "second"), types(result.state().inbox()));
    assertTrue(result.state().inbox().stream().allMatch(n -> n.attempts() == 0));

    assertTrue(runner.expectMessageClass(NewInputs.class).interrupted());
    assertTrue(assertInstanceOf(NewInputs.class, input(leaseId)).interrupted());
    for (Reply report :
        List.of(
            heartbeat(leaseId),
            complete(leaseId),
            kit.<Reply>runCommand(
                    r ->
                        new AgentEntity.Fail(
                            leaseId, "runner-1", FailureAction.RETRY, "x", 0, null, r))
                .reply())) {
      assertEquals(ErrorCode.LEASE_INTERRUPTED, assertInstanceOf(Rejected.class, report).code());
    }

    // Eligible at once, even for the same runner; the next turn is a first attempt with both.
    Granted next = claim();
    assertEquals(1, next.lease().attempt());
    assertEquals(List.of("first", "second"), types(next.notifications()));
  }

  @Test
  void rejectRefusesNewInputWhileLeasedAndStoresNothingOfIt() {
    register(NewInput.REJECT, null, null);
    notify("first", null);
    String leaseId = claim().lease().leaseId();
    var result = kit.<Reply>runCommand(r -> new AgentEntity.Notify("second", null, null, null, r));
    assertEquals(
        ErrorCode.TURN_IN_PROGRESS, assertInstanceOf(Rejected.class, result.reply()).code());
    NotificationRejected rejected = assertInstanceOf(NotificationRejected.class, result.event());
    assertEquals("second", rejected.notificationType());
    assertEquals(List.of("first"), types(result.state().inbox()));
    assertEquals(leaseId, result.state().lease().leaseId());

    assertInstanceOf(Done.class, complete(leaseId));
    // Without a turn in flight, the same notification is accepted.
    assertInstanceOf(Accepted.class, notify("second", null));
  }

  @Test
  void aNotificationsOwnPolicyWinsOverTheAgents() {
    register(NewInput.QUEUE, null, null);
    notify("first", null);
    claim();
    assertTrue(assertInstanceOf(Accepted.class, notify("steered", NewInput.STEER)).steered());
    assertEquals(
        ErrorCode.TURN_IN_PROGRESS,
        assertInstanceOf(Rejected.class, notify("refused", NewInput.REJECT)).code());
    assertTrue(assertInstanceOf(Accepted.class, notify("stop", NewInput.INTERRUPT)).interrupted());
    assertNull(kit.getState().lease());
  }

  @Test
  void aBatchDuringATurnFollowsTheAgentsPolicyItemByItem() {
    register(NewInput.INTERRUPT, null, null);
    notify("first", null);
    String leaseId = claim().lease().leaseId();
    var result =
        kit.<Reply>runCommand(
            r ->
                new AgentEntity.NotifyAll(
                    List.of(
                        new AgentEntity.NotifyItem("stop", null, null),
                        new AgentEntity.NotifyItem("after", null, null)),
                    r));
    var replies = assertInstanceOf(AgentEntity.AcceptedAll.class, result.reply()).items();
    assertTrue(assertInstanceOf(Accepted.class, replies.get(0)).interrupted());
    // The first ended the turn: the second has no turn to interrupt.
    assertFalse(assertInstanceOf(Accepted.class, replies.get(1)).interrupted());
    assertEquals(3, result.events().size());
    assertInstanceOf(LeaseInterrupted.class, result.events().get(1));
    assertNull(result.state().lease());
    assertEquals(List.of("first", "stop", "after"), types(result.state().inbox()));
    assertEquals(
        ErrorCode.LEASE_INTERRUPTED, assertInstanceOf(Rejected.class, heartbeat(leaseId)).code());
  }

  @Test
  void aBatchToARejectingAgentDuringATurnIsRefusedItemByItem() {
    register(NewInput.REJECT, null, null);
    notify("first", null);
    claim();
    var result =
        kit.<Reply>runCommand(
            r ->
                new AgentEntity.NotifyAll(
                    List.of(new AgentEntity.NotifyItem("second", null, null)), r));
    var replies = assertInstanceOf(AgentEntity.AcceptedAll.class, result.reply()).items();
    assertEquals(
        ErrorCode.TURN_IN_PROGRESS, assertInstanceOf(Rejected.class, replies.get(0)).code());
    assertInstanceOf(NotificationRejected.class, result.event());
    assertEquals(List.of("first"), types(result.state().inbox()));
  }

  @Test
  void aBurstWaitsForItsPauseThenBecomesOneTurnWithEveryNotification() {
    register(null, 500L, null);
    for (int i = 0; i < 10; i++) {
      notify("n" + i, null);
      clock.advance(Duration.ofMillis(100));
    }
    // 1000 ms after the first, 100 after the last: still within the pause.
    var denied =
        kit.<Reply>runCommand(
            r ->
                new AgentEntity.Claim(
                    new ClaimSpec("runner-1", RunnerMode.HYBRID, Set.of(), Duration.ZERO, 30), r));
    Denied d = assertInstanceOf(Denied.class, denied.reply());
    assertEquals("debouncing", d.reason());
    assertEquals(T0.plusMillis(900 + 500), d.schedule().snoozedUntil());
    clock.advance(Duration.ofMillis(400));
    Granted granted = claim();
    assertEquals(10, granted.notifications().size());
  }

  @Test
  void debounceMaxBoundsTheWaitOfTheOldestUnread() {
    register(null, 500L, 1000L);
    for (int i = 0; i < 10; i++) {
      notify("n" + i, null);
      clock.advance(Duration.ofMillis(300));
    }
    // The notifications never paused 500 ms, but the first has waited its 1000 ms.
    assertEquals(T0.plusMillis(1000), NewInputState.debounceUntil(kit.getState()));
    assertEquals(10, claim().notifications().size());
  }

  @Test
  void newInputMessagesSurviveTheNodesSerializer() {
    SerializationTestKit serialization = TEST_KIT.serializationTestKit();
    TestProbe<Reply> probe = TEST_KIT.createTestProbe();
    Notification n =
        new Notification("n1", "t", JsonNodeFactory.instance.objectNode(), null, T0, 0);
    for (Object message :
        List.of(
            new AgentEntity.Notify(
                "t", JsonNodeFactory.instance.objectNode(), "k", NewInput.INTERRUPT, probe.ref()),
            new AgentEntity.AwaitInput("lease", "runner-1", 1000, probe.ref()),
            new AgentEntity.InputWaitOver(3),
            new NewInputs(List.of(n), false),
            new Extended(T0, List.of(n)),
            new Accepted("n1", 1, false, true, false),
            new Rejected(ErrorCode.TURN_IN_PROGRESS, "busy"),
            new NotificationSteered("n1", "lease", T0),
            new LeaseInterrupted("lease", "n1", T0, new InboxSummary(2, T0)),
            new NotificationRejected("t", null, "lease", T0))) {
      serialization.verifySerialization(message, true);
    }
  }

  @Test
  void aConfigurationWrittenBeforeNewInputReadsAsQueueWithoutDebounce() throws Exception {
    Serialization serialization = SerializationExtension.get(TEST_KIT.system());
    var event = new AgentEvents.AgentRegistered(AgentConfig.defaults("a1"), T0);
    byte[] bytes = serialization.serialize(event).get();
    var serializer = serialization.findSerializerFor(event);
    String manifest = Serializers.manifestFor(serializer, event);
    CBORMapper cbor = new CBORMapper();
    ObjectNode tree = (ObjectNode) cbor.readTree(bytes);
    ObjectNode config = (ObjectNode) tree.get("config");
    assertTrue(config.has("newInput"));
    config.remove(List.of("newInput", "debounceMs", "debounceMaxMs"));
    var read =
        (AgentEvents.AgentRegistered)
            serialization
                .deserialize(cbor.writeValueAsBytes(tree), serializer.identifier(), manifest)
                .get();
    assertEquals(NewInput.QUEUE, read.config().newInput());
    assertEquals(0, read.config().debounceMs());
    assertEquals(event, read);
  }
}
