package dev.rota.cluster.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.typesafe.config.ConfigFactory;
import dev.rota.cluster.testing.MutableClock;
import dev.rota.core.model.CallInfo;
import dev.rota.core.model.Replies;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.LogCapturingExtension;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.persistence.testkit.javadsl.EventSourcedBehaviorTestKit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(LogCapturingExtension.class)
class CallEntityTest {
  private static final Instant T0 = Instant.parse("2026-11-22T09:00:00Z");
  private static final ActorTestKit TEST_KIT =
      ActorTestKit.create(
          "CallEntityTest",
          EventSourcedBehaviorTestKit.config().withFallback(ConfigFactory.load()));

  private MutableClock clock;
  private EventSourcedBehaviorTestKit<CallEntity.Command, CallEntity.Event, CallEntity.State> kit;
  private static int run;

  @AfterAll
  static void shutdown() {
    TEST_KIT.shutdownTestKit();
  }

  @BeforeEach
  void setUp() {
    clock = new MutableClock(T0);
    run++;
    kit =
        EventSourcedBehaviorTestKit.create(
            TEST_KIT.system(),
            CallEntity.create("default~c" + run, Duration.ofHours(24), clock),
            EventSourcedBehaviorTestKit.enabledSerializationSettings());
  }

  private CallEntity.View view() {
    return assertInstanceOf(
        CallEntity.View.class,
        kit.<CallEntity.Reply>runCommand(r -> new CallEntity.Get(0, r)).reply());
  }

  private void answer(String status, int value) {
    var payload =
        Replies.answered(
            "default~c" + run,
            new CallInfo.Party("default", "a1"),
            JsonNodeFactory.instance.objectNode().put("v", value));
    kit.<AgentEntity.Reply>runCommand(r -> new CallEntity.Answer(status, payload, r));
  }

  @Test
  void unknownCallIsNotKnown() {
    assertFalse(view().known());
  }

  @Test
  void keepsTheFirstAnswerOnly() {
    kit.<CallEntity.Reply>runCommand(r -> new CallEntity.Open("a1", 60, r));
    assertEquals("pending", view().status());
    answer(Replies.ANSWERED, 1);
    var again =
        kit.<AgentEntity.Reply>runCommand(
            r -> new CallEntity.Answer(Replies.ANSWERED, JsonNodeFactory.instance.objectNode(), r));
    assertInstanceOf(AgentEntity.Done.class, again.reply());
    assertTrue(again.hasNoEvents());
    assertEquals(1, view().result().get("v").asInt());
    assertEquals(T0, view().answeredAt());
  }

  @Test
  void timesOutAtItsDeadline() {
    kit.<CallEntity.Reply>runCommand(r -> new CallEntity.Open("a1", 1, r));
    clock.advance(Duration.ofSeconds(2));
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
    while (view().status().equals("pending") && System.nanoTime() < end) {
      Thread.onSpinWait();
    }
    assertEquals("timedOut", view().status());
    assertEquals("timeout", view().error().get("reason").asText());
    answer(Replies.ANSWERED, 2);
    assertEquals("timedOut", view().status(), "a late answer changes nothing");
  }

  @Test
  void longPollIsAnsweredTheMomentTheCallIs() {
    kit.<CallEntity.Reply>runCommand(r -> new CallEntity.Open("a1", 60, r));
    TestProbe<CallEntity.Reply> poller = TEST_KIT.createTestProbe();
    kit.runCommand(new CallEntity.Get(30_000, poller.ref()));
    poller.expectNoMessage(Duration.ofMillis(200));
    answer(Replies.ANSWERED, 3);
    CallEntity.View got = poller.expectMessageClass(CallEntity.View.class);
    assertEquals("answered", got.status());
  }

  @Test
  void answerBeforeTheCallIsOpenedIsKept() {
    answer(Replies.ANSWERED, 5);
    var opened = kit.<CallEntity.Reply>runCommand(r -> new CallEntity.Open("a1", 60, r));
    assertTrue(opened.hasNoEvents());
    assertEquals("answered", view().status());
    assertEquals(5, view().result().get("v").asInt());
  }

  @Test
  void answerIsForgottenAfterItsRetention() {
    kit.<CallEntity.Reply>runCommand(r -> new CallEntity.Open("a1", 60, r));
    answer(Replies.ANSWERED, 4);
    clock.advance(Duration.ofHours(25));
    assertFalse(view().known());
  }
}
