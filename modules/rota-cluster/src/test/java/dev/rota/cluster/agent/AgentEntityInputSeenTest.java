package dev.rota.cluster.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.typesafe.config.ConfigFactory;
import dev.rota.cluster.agent.AgentEntity.Accepted;
import dev.rota.cluster.agent.AgentEntity.Command;
import dev.rota.cluster.agent.AgentEntity.Done;
import dev.rota.cluster.agent.AgentEntity.Granted;
import dev.rota.cluster.agent.AgentEntity.Reply;
import dev.rota.cluster.agent.AgentEvents.ActivationCompleted;
import dev.rota.cluster.agent.AgentEvents.ActivationFailed;
import dev.rota.cluster.agent.AgentEvents.Event;
import dev.rota.cluster.testing.MutableClock;
import dev.rota.core.model.AgentConfigPatch;
import dev.rota.core.model.AgentState;
import dev.rota.core.model.ClaimSpec;
import dev.rota.core.model.FailureAction;
import dev.rota.core.model.NewInput;
import dev.rota.core.model.Notification;
import dev.rota.core.model.RunnerMode;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.LogCapturingExtension;
import org.apache.pekko.persistence.testkit.javadsl.EventSourcedBehaviorTestKit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The runner's cursor on new input: a report names the steered notifications its turn was given
 * ({@code inputSeen}), and any other steered notification stays unread for the next turn, never
 * completed unseen, failed nor dead-lettered. A report without a cursor keeps the old rule (the
 * lease's end ends them all). The journal's events say the same after a restart.
 */
@ExtendWith(LogCapturingExtension.class)
class AgentEntityInputSeenTest {
  private static final Instant T0 = Instant.parse("2026-11-28T09:00:00Z");
  private static final AgentSettings SETTINGS =
      new AgentSettings(16, 300, Duration.ofHours(1), 100, Duration.ofMillis(200));
  private static final ActorTestKit TEST_KIT =
      ActorTestKit.create(
          "AgentEntityInputSeenTest",
          EventSourcedBehaviorTestKit.config().withFallback(ConfigFactory.load()));

  private EventSourcedBehaviorTestKit<Command, Event, AgentState> kit;

  @AfterAll
  static void shutdown() {
    TEST_KIT.shutdownTestKit();
  }

  @BeforeEach
  void setUp() {
    MutableClock clock = new MutableClock(T0);
    kit =
        EventSourcedBehaviorTestKit.create(
            TEST_KIT.system(),
            AgentEntity.create("a1", SETTINGS, (state, seqNr) -> {}, clock, clock::nanos),
            EventSourcedBehaviorTestKit.enabledSerializationSettings());
    kit.clear();
    kit.<Reply>runCommand(
        r ->
            new AgentEntity.Register(
                new AgentConfigPatch(
                    null, null, null, null, null, null, null, null, NewInput.STEER, null, null),
                r));
  }

  private String notify(String type) {
    return assertInstanceOf(
            Accepted.class,
            kit.<Reply>runCommand(r -> new AgentEntity.Notify(type, null, null, null, r)).reply())
        .notificationId();
  }

  /** A lease carrying "first", with "second" and "third" steered into it. */
  private Granted leaseWithTwoSteered() {
    notify("first");
    Granted g =
        assertInstanceOf(
            Granted.class,
            kit.<Reply>runCommand(
                    r ->
                        new AgentEntity.Claim(
                            new ClaimSpec(
                                "runner-1", RunnerMode.HYBRID, Set.of(), Duration.ZERO, 30),
                            r))
                .reply());
    notify("second");
    notify("third");
    assertEquals(2, kit.getState().lease().steeredIds().size());
    return g;
  }

  private static List<String> types(List<Notification> notifications) {
    return notifications.stream().map(Notification::type).toList();
  }

  private ActivationCompleted complete(String leaseId, List<String> inputSeen) {
    var result =
        kit.<Reply>runCommand(
            r ->
                new AgentEntity.Complete(
                    leaseId,
                    "runner-1",
                    JsonNodeFactory.instance.objectNode(),
                    List.of(),
                    List.of(),
                    inputSeen,
                    r));
    assertInstanceOf(Done.class, result.reply());
    return assertInstanceOf(ActivationCompleted.class, result.event());
  }

  @Test
  void aSteeredNotificationTheRunnerWasNotGivenStaysUnreadForTheNextTurn() {
    Granted g = leaseWithTwoSteered();
    List<String> steered = kit.getState().lease().steeredIds();

    ActivationCompleted completed =
        complete(g.lease().leaseId(), List.of(steered.get(0), "not-steered-here"));

    assertEquals(List.of(steered.get(1)), completed.unseenSteered());
    assertEquals(1, completed.inboxAfter().unread());
    assertEquals(List.of("third"), types(kit.getState().inbox()));
    assertEquals(0, kit.getState().inbox().get(0).attempts());
    assertNull(kit.getState().lease());
    // The journal replays to the same inbox.
    assertEquals(List.of("third"), types(kit.restart().state().inbox()));
  }

  @Test
  void aReportWithoutACursorCompletesEverySteeredNotification() {
    Granted g = leaseWithTwoSteered();
    ActivationCompleted completed = complete(g.lease().leaseId(), null);
    assertEquals(List.of(), completed.unseenSteered());
    assertEquals(List.of(), kit.getState().inbox());
  }

  @Test
  void anEmptyCursorLeavesEverySteeredNotificationUnread() {
    Granted g = leaseWithTwoSteered();
    complete(g.lease().leaseId(), List.of());
    assertEquals(List.of("second", "third"), types(kit.getState().inbox()));
  }

  @Test
  void aCancelledTurnDeadLettersOnlyWhatItsRunnerSaw() {
    Granted g = leaseWithTwoSteered();
    String seen = kit.getState().lease().steeredIds().get(0);
    var result =
        kit.<Reply>runCommand(
            r ->
                new AgentEntity.Fail(
                    g.lease().leaseId(),
                    "runner-1",
                    FailureAction.CANCEL,
                    "no",
                    0,
                    List.of(seen),
                    r));
    assertInstanceOf(Done.class, result.reply());
    ActivationFailed failed = assertInstanceOf(ActivationFailed.class, result.event());
    assertEquals(
        List.of("first", "second"),
        failed.deadLettered().stream().map(d -> d.notification().type()).toList());
    assertEquals(List.of("third"), types(kit.getState().inbox()));
    assertEquals(0, kit.getState().inbox().get(0).attempts());
    AgentState replayed = kit.restart().state();
    assertEquals(List.of("third"), types(replayed.inbox()));
    assertEquals(2, replayed.deadLetters().size());
    assertNull(replayed.lease());
  }
}
