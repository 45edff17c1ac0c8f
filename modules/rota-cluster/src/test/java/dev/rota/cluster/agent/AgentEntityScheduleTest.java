package dev.rota.cluster.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.typesafe.config.ConfigFactory;
import dev.rota.cluster.agent.AgentEntity.Command;
import dev.rota.cluster.agent.AgentEntity.Denied;
import dev.rota.cluster.agent.AgentEntity.ErrorCode;
import dev.rota.cluster.agent.AgentEntity.Granted;
import dev.rota.cluster.agent.AgentEntity.Rejected;
import dev.rota.cluster.agent.AgentEntity.Reply;
import dev.rota.cluster.agent.AgentEvents.Event;
import dev.rota.cluster.assign.ActivationJson;
import dev.rota.cluster.testing.MutableClock;
import dev.rota.core.model.ActivationKind;
import dev.rota.core.model.AgentConfigPatch;
import dev.rota.core.model.AgentState;
import dev.rota.core.model.ClaimSpec;
import dev.rota.core.model.RunnerMode;
import dev.rota.core.model.Schedule;
import dev.rota.core.model.ScheduleFire;
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

/** An agent's schedules through its entity: validation, scheduled claims, journal and recovery. */
@ExtendWith(LogCapturingExtension.class)
class AgentEntityScheduleTest {
  private static final Instant T0 = Instant.parse("2026-11-22T09:00:00Z");
  private static final AgentSettings SETTINGS =
      new AgentSettings(16, 300, Duration.ofHours(1), 100, Duration.ofMillis(200));
  private static final ActorTestKit TEST_KIT =
      ActorTestKit.create(
          "AgentEntityScheduleTest",
          EventSourcedBehaviorTestKit.config().withFallback(ConfigFactory.load()));
  private static final ObjectNode PAYLOAD = JsonNodeFactory.instance.objectNode().put("task", "t");

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

  private Reply register(List<Schedule> schedules) {
    // An hour's minimum interval: scheduled turns must not wait for it.
    return kit.<Reply>runCommand(
            r ->
                new AgentEntity.Register(
                    new AgentConfigPatch(null, null, null, 3600L, null, null, null, schedules), r))
        .reply();
  }

  private Reply claim(RunnerMode mode) {
    return kit.<Reply>runCommand(
            r ->
                new AgentEntity.Claim(
                    new ClaimSpec("runner-1", mode, Set.of(), Duration.ZERO, 30), r))
        .reply();
  }

  @Test
  void missedFiresBecomeOneScheduledTurnCarryingTheSchedule() {
    register(List.of(new Schedule("tick", "* * * * *", "UTC", PAYLOAD)));
    assertEquals(T0.plusSeconds(60), kit.getState().nextFireAt());
    Granted first = assertInstanceOf(Granted.class, claim(RunnerMode.EXPLORATION));
    assertEquals(ActivationKind.EXPLORATION, first.lease().kind());
    kit.<Reply>runCommand(
        r -> new AgentEntity.Complete(first.lease().leaseId(), first.lease().runnerId(), null, r));

    clock.advance(Duration.ofSeconds(3 * 60 + 30));
    Granted granted = assertInstanceOf(Granted.class, claim(RunnerMode.HYBRID));

    assertEquals(ActivationKind.SCHEDULED, granted.lease().kind());
    assertEquals(new ScheduleFire("tick", T0.plusSeconds(180)), granted.lease().schedule());
    var json = ActivationJson.assignment(granted);
    assertEquals("scheduled", json.get("kind").asText());
    assertEquals("tick", json.get("schedule").get("name").asText());
    assertEquals("2026-11-22T09:03:00Z", json.get("schedule").get("firedAt").asText());
    assertEquals(PAYLOAD, json.get("schedule").get("payload"));

    var done =
        kit.<Reply>runCommand(
            r ->
                new AgentEntity.Complete(
                    granted.lease().leaseId(), granted.lease().runnerId(), null, r));
    var completed = assertInstanceOf(AgentEvents.ActivationCompleted.class, done.event());
    assertEquals(T0.plusSeconds(240), completed.inboxAfter().nextFireAt());
    assertEquals(
        "min_interval", assertInstanceOf(Denied.class, claim(RunnerMode.EXPLORATION)).reason());

    var restarted = kit.restart();
    assertEquals(T0.plusSeconds(240), restarted.state().nextFireAt());
    clock.advance(Duration.ofSeconds(30));
    Granted next = assertInstanceOf(Granted.class, claim(RunnerMode.EXPLORATION));
    assertEquals(new ScheduleFire("tick", T0.plusSeconds(240)), next.lease().schedule());
  }

  @Test
  void registrationEventCarriesTheNextFireForTheReadModel() {
    var result =
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
                        List.of(new Schedule("standup", "0 9 * * *", "Europe/Berlin", null))),
                    r));

    var event = assertInstanceOf(AgentEvents.AgentRegistered.class, result.event());
    assertEquals(Instant.parse("2026-11-23T08:00:00Z"), event.nextFireAt());
  }

  @Test
  void refusesAnInvalidScheduleAndPersistsNothing() {
    var result =
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
                        List.of(new Schedule("x", "not cron", "UTC", null))),
                    r));

    Rejected rejected = assertInstanceOf(Rejected.class, result.reply());
    assertEquals(ErrorCode.INVALID, rejected.code());
    assertTrue(rejected.message().contains("schedules[0].cron"), rejected.message());
    assertTrue(result.hasNoEvents());
  }
}
