package dev.rota.cluster.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.typesafe.config.ConfigFactory;
import dev.rota.cluster.agent.AgentEntity.Command;
import dev.rota.cluster.agent.AgentEntity.Done;
import dev.rota.cluster.agent.AgentEntity.ErrorCode;
import dev.rota.cluster.agent.AgentEntity.Granted;
import dev.rota.cluster.agent.AgentEntity.Rejected;
import dev.rota.cluster.agent.AgentEntity.Reply;
import dev.rota.cluster.agent.AgentEvents.ActivationCompleted;
import dev.rota.cluster.agent.AgentEvents.Event;
import dev.rota.cluster.testing.MutableClock;
import dev.rota.core.model.AgentConfigPatch;
import dev.rota.core.model.AgentState;
import dev.rota.core.model.CallInfo;
import dev.rota.core.model.CallRequest;
import dev.rota.core.model.ClaimSpec;
import dev.rota.core.model.FailureAction;
import dev.rota.core.model.Notification;
import dev.rota.core.model.OutboxItem;
import dev.rota.core.model.Replies;
import dev.rota.core.model.RunnerMode;
import dev.rota.core.model.Send;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.LogCapturingExtension;
import org.apache.pekko.persistence.testkit.javadsl.EventSourcedBehaviorTestKit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Deferred answers: A calls B, B's turn calls C and defers A's call, and B answers A in a later
 * turn. Each agent is run by its own test kit; the test is the network between them.
 */
@ExtendWith(LogCapturingExtension.class)
class AgentEntityDeferTest {
  private static final Instant T0 = Instant.parse("2026-11-22T09:00:00Z");
  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;
  private static final AgentSettings SETTINGS =
      new AgentSettings(16, 300, Duration.ofHours(1), 100, Duration.ofMillis(200));
  private static final ActorTestKit TEST_KIT =
      ActorTestKit.create(
          "AgentEntityDeferTest",
          EventSourcedBehaviorTestKit.config()
              .withFallback(
                  ConfigFactory.parseString(
                      "rota.calls { max-depth = 3, delivery-retry-min = 20ms,"
                          + " delivery-retry-max = 50ms, delivery-timeout = 10m }"))
              .withFallback(ConfigFactory.load()));

  record Pending(OutboxItem item, CompletableFuture<Reply> answer) {}

  /** The agents' mailbox: it only queues; the test delivers. */
  static final class HandDelivery implements Mailbox {
    final LinkedBlockingQueue<Pending> queue = new LinkedBlockingQueue<>();

    @Override
    public CompletionStage<Reply> deliver(OutboxItem item, Duration timeout) {
      CompletableFuture<Reply> answer = new CompletableFuture<>();
      queue.add(new Pending(item, answer));
      return answer;
    }

    Pending next() throws InterruptedException {
      Pending p = queue.poll(3, TimeUnit.SECONDS);
      assertNotNull(p, "an item was handed to the mailbox");
      return p;
    }
  }

  private static int run;
  private MutableClock clock;
  private HandDelivery mailbox;
  private EventSourcedBehaviorTestKit<Command, Event, AgentState> a;
  private EventSourcedBehaviorTestKit<Command, Event, AgentState> b;
  private EventSourcedBehaviorTestKit<Command, Event, AgentState> c;

  @AfterAll
  static void shutdown() {
    TEST_KIT.shutdownTestKit();
  }

  @BeforeEach
  void setUp() {
    clock = new MutableClock(T0);
    mailbox = new HandDelivery();
    run++;
    // Each test kit clears the whole in-memory journal when it is created: all three exist before
    // any agent writes, or a kit made later would erase the events of those made before it (and a
    // restart would replay an agent without its registration).
    a = kit("a" + run);
    b = kit("b" + run);
    c = kit("c" + run);
    for (var kit : List.of(a, b, c)) {
      kit.<Reply>runCommand(r -> new AgentEntity.Register(AgentConfigPatch.empty(), r));
    }
  }

  private EventSourcedBehaviorTestKit<Command, Event, AgentState> kit(String agentId) {
    return EventSourcedBehaviorTestKit.create(
        TEST_KIT.system(),
        AgentEntity.create(
            agentId, SETTINGS, AgentChangeListener.NONE, clock, clock::nanos, mailbox),
        EventSourcedBehaviorTestKit.enabledSerializationSettings());
  }

  /** A claim of {@code kit}, made a minute on so no minimum interval holds it back. */
  private Granted claim(EventSourcedBehaviorTestKit<Command, Event, AgentState> kit) {
    clock.advance(Duration.ofMinutes(1));
    Reply reply =
        kit.<Reply>runCommand(
                r ->
                    new AgentEntity.Claim(
                        new ClaimSpec("runner-1", RunnerMode.HYBRID, Set.of(), Duration.ZERO, 30),
                        r))
            .reply();
    return assertInstanceOf(Granted.class, reply, String.valueOf(reply));
  }

  private static Send call(EventSourcedBehaviorTestKit<Command, Event, AgentState> target) {
    return new Send(
        target.getState().agentId(),
        "question",
        JSON.objectNode().put("q", "why"),
        null,
        null,
        new CallRequest(3600, null));
  }

  private static Reply complete(
      EventSourcedBehaviorTestKit<Command, Event, AgentState> kit,
      Granted g,
      JsonNode result,
      List<Send> sends,
      List<String> defer) {
    return kit.<Reply>runCommand(
            r ->
                new AgentEntity.Complete(
                    g.lease().leaseId(), g.lease().runnerId(), result, sends, defer, null, r))
        .reply();
  }

  private static Reply deliverTo(
      Pending p, EventSourcedBehaviorTestKit<Command, Event, AgentState> target) {
    Reply reply = target.<Reply>runCommand(r -> Mailbox.commandFor(p.item(), r)).reply();
    p.answer().complete(reply);
    return reply;
  }

  /** A's turn calls B, and B's turn is granted carrying the call; returns B's grant. */
  private Granted aCallsB() throws InterruptedException {
    a.<Reply>runCommand(r -> new AgentEntity.Notify("start", null, null, r));
    complete(a, claim(a), null, List.of(call(b)), List.of());
    deliverTo(mailbox.next(), b);
    return claim(b);
  }

  /** B's turn defers A's call and calls C; returns A's call id. */
  private String bDefersAndCallsC() throws InterruptedException {
    Granted served = aCallsB();
    String callId = served.notifications().get(0).call().callId();
    assertInstanceOf(
        Done.class,
        complete(
            b, served, JSON.objectNode().put("step", "first"), List.of(call(c)), List.of(callId)));
    return callId;
  }

  @Test
  void aDeferredCallIsAnsweredOnceByALaterTurnWithItsResult() throws Exception {
    String callId = bDefersAndCallsC();
    Pending toC = mailbox.next();
    assertEquals(c.getState().agentId(), toC.item().targetKey(), "only the call to C leaves");
    assertEquals(2, toC.item().call().depth(), "B's call is one deeper than the call it owes");
    assertEquals(
        List.of(callId), b.getState().calls().owed().stream().map(CallInfo::callId).toList());

    deliverTo(toC, c);
    complete(c, claim(c), JSON.objectNode().put("c", "done"), List.of(), List.of());
    deliverTo(mailbox.next(), b);

    Granted again = claim(b);
    assertEquals(callId, again.owes().get(0).callId(), "B's turn sees the call it owes");
    assertEquals(Replies.TYPE, again.notifications().get(0).type());
    complete(b, again, JSON.objectNode().put("step", "second"), List.of(), List.of());

    Pending toA = mailbox.next();
    assertEquals(callId, toA.item().replyTo());
    deliverTo(toA, a);
    assertNull(mailbox.queue.poll(200, TimeUnit.MILLISECONDS), "no second reply to A");
    List<Notification> inbox = a.getState().inbox();
    assertEquals(1, inbox.size());
    assertEquals("answered", inbox.get(0).payload().get("status").asText());
    assertEquals("second", inbox.get(0).payload().get("result").get("step").asText());
    assertTrue(b.getState().calls().owed().isEmpty());
  }

  @Test
  void aRecoveredAgentStillOwesItsDeferredCallsAndAnswersThemLater() throws Exception {
    String callId = bDefersAndCallsC();
    Pending lost = mailbox.next();
    AgentState before = b.getState();
    assertTrue(before.registered());
    assertEquals(List.of(callId), before.calls().owed().stream().map(CallInfo::callId).toList());

    // B's node dies with the call to C in flight: B is recovered from its journal.
    AgentState after = b.restart().state();
    assertEquals(before, after, "recovery rebuilds the same state, owed calls included");

    Pending again = mailbox.next();
    assertEquals(lost.item(), again.item(), "the call to C is sent again");
    deliverTo(again, c);
    lost.answer().complete(new AgentEntity.Accepted("late", 1, true, false, false));
    assertEquals(1, c.getState().inbox().size(), "C got the call once");
    complete(c, claim(c), JSON.objectNode().put("c", "done"), List.of(), List.of());
    deliverTo(mailbox.next(), b);

    Granted later = claim(b);
    assertEquals(List.of(callId), later.owes().stream().map(CallInfo::callId).toList());
    complete(b, later, JSON.objectNode().put("step", "after"), List.of(), List.of());
    Pending toA = mailbox.next();
    assertEquals(callId, toA.item().replyTo());
    deliverTo(toA, a);
    assertEquals("after", a.getState().inbox().get(0).payload().get("result").get("step").asText());
    assertTrue(b.getState().calls().owed().isEmpty());
  }

  @Test
  void aDeferNamingACallTheAgentDoesNotOweIsRefusedAndWritesNothing() throws Exception {
    Granted served = aCallsB();
    var result =
        b.<Reply>runCommand(
            r ->
                new AgentEntity.Complete(
                    served.lease().leaseId(),
                    "runner-1",
                    null,
                    List.of(),
                    List.of(served.notifications().get(0).call().callId(), "nope"),
                    null,
                    r));
    Rejected refused = assertInstanceOf(Rejected.class, result.reply());
    assertEquals(ErrorCode.INVALID, refused.code());
    assertTrue(refused.message().contains("defer[1]"), refused.message());
    assertTrue(result.hasNoEvents());
    assertTrue(b.getState().hasLease(), "the lease is still held");
  }

  @Test
  void aFailedTurnLeavesItsOwedCallsOwed() throws Exception {
    String callId = bDefersAndCallsC();
    mailbox.next();
    b.<Reply>runCommand(r -> new AgentEntity.Notify("nudge", null, null, r));
    Granted nudged = claim(b);
    assertEquals(callId, nudged.owes().get(0).callId());
    b.<Reply>runCommand(
        r ->
            new AgentEntity.Fail(
                nudged.lease().leaseId(), "runner-1", FailureAction.RETRY, "boom", 0, null, r));
    assertNull(mailbox.queue.poll(200, TimeUnit.MILLISECONDS), "nothing answers A");
    assertEquals(callId, b.getState().calls().owed().get(0).callId());
  }

  @Test
  void aCallDeferredAgainStaysOwedUntilATurnAnswersIt() throws Exception {
    String callId = bDefersAndCallsC();
    mailbox.next();
    b.<Reply>runCommand(r -> new AgentEntity.Notify("nudge", null, null, r));
    String leaseId = claim(b).lease().leaseId();
    var completed =
        b.<Reply>runCommand(
            r ->
                new AgentEntity.Complete(
                    leaseId, "runner-1", null, List.of(), List.of(callId), null, r));
    assertEquals(
        callId,
        assertInstanceOf(ActivationCompleted.class, completed.event()).owed().get(0).callId());
    assertNull(mailbox.queue.poll(200, TimeUnit.MILLISECONDS), "still no reply to A");
  }

  @Test
  void aDeletedAgentAnswersTheCallsItOwesFailed() throws Exception {
    String callId = bDefersAndCallsC();
    mailbox.next();
    b.<Reply>runCommand(AgentEntity.Deregister::new);
    Pending toA = mailbox.next();
    assertEquals(callId, toA.item().replyTo());
    assertEquals(Replies.FAILED, toA.item().status());
    deliverTo(toA, a);
    JsonNode payload = a.getState().inbox().get(0).payload();
    assertEquals("deleted", payload.get("error").get("reason").asText());
  }
}
