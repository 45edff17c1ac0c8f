package dev.rota.cluster.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.typesafe.config.ConfigFactory;
import dev.rota.cluster.agent.AgentEntity.Accepted;
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
import dev.rota.core.model.CallRequest;
import dev.rota.core.model.ClaimSpec;
import dev.rota.core.model.FailureAction;
import dev.rota.core.model.HistoryEntry;
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
import java.util.function.Supplier;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.LogCapturingExtension;
import org.apache.pekko.persistence.testkit.javadsl.EventSourcedBehaviorTestKit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Sends, calls and replies between two agents, each run by its own test kit; the test is the
 * network between them ({@link HandDelivery}), so it decides when and how each item arrives.
 */
@ExtendWith(LogCapturingExtension.class)
class AgentEntityCallsTest {
  private static final Instant T0 = Instant.parse("2026-11-22T09:00:00Z");
  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;
  private static final AgentSettings SETTINGS =
      new AgentSettings(16, 300, Duration.ofHours(1), 100, Duration.ofMillis(200));
  private static final ActorTestKit TEST_KIT =
      ActorTestKit.create(
          "AgentEntityCallsTest",
          EventSourcedBehaviorTestKit.config()
              .withFallback(
                  ConfigFactory.parseString(
                      "rota.calls { max-depth = 2, delivery-retry-min = 20ms,"
                          + " delivery-retry-max = 50ms, delivery-timeout = 10m }"))
              .withFallback(ConfigFactory.load()));

  /** Items handed to the mailbox, each waiting for the test to answer for its target. */
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

  private MutableClock clock;
  private HandDelivery mailbox;
  private EventSourcedBehaviorTestKit<Command, Event, AgentState> caller;
  private EventSourcedBehaviorTestKit<Command, Event, AgentState> callee;
  private static int run;

  @AfterAll
  static void shutdown() {
    TEST_KIT.shutdownTestKit();
  }

  @BeforeEach
  void setUp() {
    clock = new MutableClock(T0);
    mailbox = new HandDelivery();
    run++;
    caller = kit("a" + run);
    callee = kit("b" + run);
    register(caller);
    register(callee);
  }

  private EventSourcedBehaviorTestKit<Command, Event, AgentState> kit(String agentId) {
    return EventSourcedBehaviorTestKit.create(
        TEST_KIT.system(),
        AgentEntity.create(
            agentId, SETTINGS, AgentChangeListener.NONE, clock, clock::nanos, mailbox),
        EventSourcedBehaviorTestKit.enabledSerializationSettings());
  }

  private static void register(EventSourcedBehaviorTestKit<Command, Event, AgentState> kit) {
    kit.<Reply>runCommand(r -> new AgentEntity.Register(AgentConfigPatch.empty(), r));
  }

  private static Granted claim(EventSourcedBehaviorTestKit<Command, Event, AgentState> kit) {
    return assertInstanceOf(
        Granted.class,
        kit.<Reply>runCommand(
                r ->
                    new AgentEntity.Claim(
                        new ClaimSpec("runner-1", RunnerMode.HYBRID, Set.of(), Duration.ZERO, 30),
                        r))
            .reply());
  }

  private static Granted notifiedAndClaimed(
      EventSourcedBehaviorTestKit<Command, Event, AgentState> kit) {
    kit.<Reply>runCommand(r -> new AgentEntity.Notify("start", null, null, r));
    return claim(kit);
  }

  private static Send send(String agentId, String type) {
    return new Send(agentId, type, JSON.objectNode().put("k", type), null, null, null);
  }

  private static Send call(String agentId, String group) {
    return new Send(
        agentId,
        "question",
        JSON.objectNode().put("q", "why"),
        null,
        null,
        new CallRequest(60, group));
  }

  private static Reply complete(
      EventSourcedBehaviorTestKit<Command, Event, AgentState> kit,
      Granted g,
      JsonNode result,
      List<Send> sends) {
    return kit.<Reply>runCommand(
            r ->
                new AgentEntity.Complete(
                    g.lease().leaseId(), g.lease().runnerId(), result, sends, r))
        .reply();
  }

  /** Hands {@code p} to {@code target} and gives its answer back to the sender. */
  private static Reply deliverTo(
      Pending p, EventSourcedBehaviorTestKit<Command, Event, AgentState> target) {
    Reply reply = target.<Reply>runCommand(r -> Mailbox.commandFor(p.item(), r)).reply();
    p.answer().complete(reply);
    return reply;
  }

  private static void eventually(Supplier<Boolean> condition, String what) {
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
    while (!condition.get()) {
      if (System.nanoTime() > end) {
        throw new AssertionError("not within 3 s: " + what);
      }
      try {
        Thread.sleep(10);
      } catch (InterruptedException e) {
        throw new AssertionError(e);
      }
    }
  }

  private String callerId() {
    return caller.getState().agentId();
  }

  private String calleeId() {
    return callee.getState().agentId();
  }

  @Test
  void sendsAreWrittenInTheCompletionEventAndDeliveredOnce() throws Exception {
    Granted g = notifiedAndClaimed(caller);
    var result =
        caller.<Reply>runCommand(
            r ->
                new AgentEntity.Complete(
                    g.lease().leaseId(),
                    "runner-1",
                    null,
                    List.of(send(calleeId(), "review"), send(calleeId(), "deploy")),
                    r));
    assertInstanceOf(Done.class, result.reply());
    ActivationCompleted completed = assertInstanceOf(ActivationCompleted.class, result.event());
    assertEquals(2, completed.sends().size());
    assertEquals(
        "rota.send:" + callerId() + ":" + g.lease().fencingToken() + ":1",
        completed.sends().get(1).dedupeKey());
    assertEquals(2, result.state().calls().outbox().size());

    Accepted first = assertInstanceOf(Accepted.class, deliverTo(mailbox.next(), callee));
    Pending second = mailbox.next();
    // The target's answer was lost: the same item is tried again and is a duplicate there.
    deliverTo(second, callee);
    eventually(() -> caller.getState().calls().outbox().size() == 0, "the outbox is empty");
    assertEquals(2, callee.getState().inbox().size());
    assertEquals("review", callee.getState().inbox().get(0).type());
    assertEquals(first.notificationId(), callee.getState().inbox().get(0).notificationId());
    assertEquals(0, mailbox.queue.size());
  }

  @Test
  void anOutboxLeftByADeadNodeIsDeliveredOnceTheAgentRecovers() throws Exception {
    Granted g = notifiedAndClaimed(caller);
    complete(caller, g, null, List.of(send(calleeId(), "review")));
    Pending lost = mailbox.next();
    // The node dies before the target answers: the agent is recovered from its journal.
    caller.restart();
    Pending again = mailbox.next();
    assertEquals(lost.item(), again.item());
    deliverTo(again, callee);
    eventually(() -> caller.getState().calls().outbox().isEmpty(), "delivered after recovery");
    lost.answer().complete(new Accepted("late", 1, true, false, false));
    assertEquals(1, callee.getState().inbox().size());
  }

  @Test
  void wakingAnAgentThatIsDeliveringSendsNothingTwice() throws Exception {
    Granted g = notifiedAndClaimed(caller);
    complete(caller, g, null, List.of(send(calleeId(), "review")));
    Pending first = mailbox.next();
    caller.runCommand(AgentEntity.DeliverOwed.INSTANCE);
    assertNull(mailbox.queue.poll(200, TimeUnit.MILLISECONDS), "still in flight: not sent again");
    deliverTo(first, callee);
    eventually(() -> caller.getState().calls().outbox().isEmpty(), "delivered");
  }

  @Test
  void refusedCompletionSendsNothing() throws Exception {
    Granted g = notifiedAndClaimed(caller);
    var wrongRunner =
        caller.<Reply>runCommand(
            r ->
                new AgentEntity.Complete(
                    g.lease().leaseId(), "runner-2", null, List.of(send(calleeId(), "x")), r));
    assertEquals(
        ErrorCode.LEASE_NOT_HELD, assertInstanceOf(Rejected.class, wrongRunner.reply()).code());
    assertTrue(wrongRunner.hasNoEvents());
    assertTrue(caller.getState().calls().outbox().isEmpty());
    assertNull(mailbox.queue.poll(200, TimeUnit.MILLISECONDS));
  }

  @Test
  void refusesMoreSendsThanATurnMayCarry() {
    Granted g = notifiedAndClaimed(caller);
    List<Send> many = java.util.Collections.nCopies(101, send(calleeId(), "x"));
    Reply reply = complete(caller, g, null, many);
    assertEquals(ErrorCode.INVALID, assertInstanceOf(Rejected.class, reply).code());
    assertTrue(caller.getState().hasLease(), "the lease is still held");
  }

  @Test
  void sendToAnUnknownAgentBecomesTheSendersDeadLetter() throws Exception {
    Granted g = notifiedAndClaimed(caller);
    complete(caller, g, null, List.of(send("nobody", "hello")));
    EventSourcedBehaviorTestKit<Command, Event, AgentState> nobody = kit("nobody");
    Reply refused = deliverTo(mailbox.next(), nobody);
    assertEquals(ErrorCode.NOT_FOUND, assertInstanceOf(Rejected.class, refused).code());
    eventually(() -> caller.getState().deadLetters().size() == 1, "a dead letter");
    assertEquals("hello", caller.getState().deadLetters().get(0).notification().type());
    assertTrue(caller.getState().calls().outbox().isEmpty());
  }

  @Test
  void refusedDeliveryIsRetriedUntilAccepted() throws Exception {
    Granted g = notifiedAndClaimed(caller);
    complete(caller, g, null, List.of(send(calleeId(), "hello")));
    mailbox.next().answer().complete(new Rejected(ErrorCode.INBOX_FULL, "full"));
    deliverTo(mailbox.next(), callee);
    eventually(() -> caller.getState().calls().outbox().isEmpty(), "delivered on the retry");
    assertEquals(1, callee.getState().inbox().size());
  }

  @Test
  void callIsAnsweredWithTheCalleesResult() throws Exception {
    Granted g = notifiedAndClaimed(caller);
    complete(caller, g, null, List.of(call(calleeId(), null)));
    String callId = caller.getState().calls().openCalls().get(0).callId();
    deliverTo(mailbox.next(), callee);
    Notification carried = callee.getState().inbox().get(0);
    assertEquals(callId, carried.call().callId());
    assertEquals(callerId(), carried.call().from().agentId());
    assertEquals(1, carried.call().depth());

    Granted served = claim(callee);
    complete(callee, served, JSON.objectNode().put("answer", 42), List.of());
    Pending reply = mailbox.next();
    assertEquals(Replies.ANSWERED, reply.item().status());
    assertInstanceOf(Done.class, deliverTo(reply, caller));
    eventually(() -> callee.getState().calls().outbox().isEmpty(), "the reply is delivered");

    AgentState state = caller.getState();
    assertTrue(state.calls().openCalls().isEmpty());
    Notification got = state.inbox().get(0);
    assertEquals(Replies.TYPE, got.type());
    assertEquals(callId, got.payload().get("callId").asText());
    assertEquals("answered", got.payload().get("status").asText());
    assertEquals(42, got.payload().get("result").get("answer").asInt());
    assertEquals(calleeId(), got.payload().get("from").get("agentId").asText());
    assertTrue(named(state, "call.answered", callId), "the caller's history names the call");
    assertTrue(named(callee.getState(), "call.replied", callId), "so does the callee's");
  }

  @Test
  void sameReplyDeliveredTwiceReachesTheInboxOnce() throws Exception {
    Granted g = notifiedAndClaimed(caller);
    complete(caller, g, null, List.of(call(calleeId(), null)));
    deliverTo(mailbox.next(), callee);
    complete(callee, claim(callee), null, List.of());
    Pending reply = mailbox.next();
    caller.<Reply>runCommand(r -> Mailbox.commandFor(reply.item(), r));
    deliverTo(reply, caller);
    assertEquals(1, caller.getState().inbox().size());
  }

  @Test
  void callWhoseNotificationIsDeadLetteredIsAnsweredFailed() throws Exception {
    Granted g = notifiedAndClaimed(caller);
    complete(caller, g, null, List.of(call(calleeId(), null)));
    deliverTo(mailbox.next(), callee);
    Granted served = claim(callee);
    callee.<Reply>runCommand(
        r ->
            new AgentEntity.Fail(
                served.lease().leaseId(), "runner-1", FailureAction.CANCEL, "no", 0, null, r));
    Pending reply = mailbox.next();
    assertEquals(Replies.FAILED, reply.item().status());
    deliverTo(reply, caller);
    JsonNode payload = caller.getState().inbox().get(0).payload();
    assertEquals("failed", payload.get("status").asText());
    assertEquals("dead_letter", payload.get("error").get("reason").asText());
  }

  @Test
  void callsLeftUnreadByADeletedAgentAreAnsweredFailed() throws Exception {
    Granted g = notifiedAndClaimed(caller);
    complete(caller, g, null, List.of(call(calleeId(), null)));
    deliverTo(mailbox.next(), callee);
    callee.<Reply>runCommand(AgentEntity.Deregister::new);
    Pending reply = mailbox.next();
    assertEquals(Replies.FAILED, reply.item().status());
    deliverTo(reply, caller);
    JsonNode payload = caller.getState().inbox().get(0).payload();
    assertEquals("deleted", payload.get("error").get("reason").asText());
  }

  @Test
  void aReplyToADeletedCallerIsGivenUpOnceAndNotRetried() throws Exception {
    Granted g = notifiedAndClaimed(caller);
    complete(caller, g, null, List.of(call(calleeId(), null)));
    deliverTo(mailbox.next(), callee);
    caller.<Reply>runCommand(AgentEntity.Deregister::new);
    complete(callee, claim(callee), JSON.objectNode().put("answer", 42), List.of());

    Pending reply = mailbox.next();
    Reply refused = deliverTo(reply, caller);
    assertEquals(ErrorCode.NOT_FOUND, assertInstanceOf(Rejected.class, refused).code());
    eventually(() -> callee.getState().calls().outbox().isEmpty(), "the reply given up");
    assertTrue(callee.getState().deadLetters().isEmpty(), "a reply is not dead-lettered");
    assertTrue(
        callee.getState().history().stream().anyMatch(e -> e.type().equals("send.undeliverable")),
        callee.getState().history().toString());
    assertNull(mailbox.queue.poll(300, TimeUnit.MILLISECONDS), "no retry of a given-up reply");
  }

  @Test
  void callToAnUnknownAgentIsAnsweredUndeliverable() throws Exception {
    Granted g = notifiedAndClaimed(caller);
    complete(caller, g, null, List.of(call("nobody", null)));
    deliverTo(mailbox.next(), kit("nobody"));
    eventually(() -> caller.getState().inbox().size() == 1, "a failed reply");
    JsonNode payload = caller.getState().inbox().get(0).payload();
    assertEquals("failed", payload.get("status").asText());
    assertEquals("undeliverable", payload.get("error").get("reason").asText());
    assertTrue(caller.getState().deadLetters().isEmpty(), "a call is answered, not dead-lettered");
  }

  @Test
  void callTimesOutAndALateAnswerIsOnlyRecorded() throws Exception {
    Granted g = notifiedAndClaimed(caller);
    Send quick = new Send(calleeId(), "q", JSON.objectNode(), null, null, new CallRequest(1, null));
    complete(caller, g, null, List.of(quick));
    String callId = caller.getState().calls().openCalls().get(0).callId();
    clock.advance(Duration.ofSeconds(2));
    // The deadline timer fires on the scheduler's time, a second after the completion.
    eventually(() -> caller.getState().inbox().size() == 1, "a timedOut reply");
    assertEquals("timedOut", caller.getState().inbox().get(0).payload().get("status").asText());

    deliverTo(mailbox.next(), callee);
    complete(callee, claim(callee), JSON.objectNode().put("late", true), List.of());
    deliverTo(mailbox.next(), caller);
    assertEquals(1, caller.getState().inbox().size(), "the late answer is not delivered");
    assertTrue(named(caller.getState(), "call.reply_late", callId));
  }

  @Test
  void callBeyondTheMaximumDepthIsAnsweredAtOnce() throws Exception {
    // max-depth is 2 here: the caller's call is depth 1, the callee's call on is depth 2, and a
    // call made while serving that one would be 3.
    Granted g = notifiedAndClaimed(caller);
    complete(caller, g, null, List.of(call(calleeId(), null)));
    deliverTo(mailbox.next(), callee);
    complete(callee, claim(callee), null, List.of(call(callerId(), null)));
    Pending depth2 = mailbox.next();
    assertEquals(2, depth2.item().call().depth());
    deliverTo(depth2, caller);
    Granted serving = claim(caller);
    var result =
        caller.<Reply>runCommand(
            r ->
                new AgentEntity.Complete(
                    serving.lease().leaseId(),
                    "runner-1",
                    null,
                    List.of(call(calleeId(), null)),
                    r));
    assertEquals(2, result.events().size(), "the completion, and the call answered at once");
    assertEquals(1, result.state().calls().outbox().size(), "only the reply to depth 2 is owed");
    JsonNode failed = caller.getState().inbox().get(0).payload();
    assertEquals("depth_exceeded", failed.get("error").get("reason").asText());
  }

  @Test
  void groupRepliesReachTheInboxTogether() throws Exception {
    EventSourcedBehaviorTestKit<Command, Event, AgentState> third = kit("c" + run);
    register(third);
    Granted g = notifiedAndClaimed(caller);
    String thirdId = third.getState().agentId();
    complete(caller, g, null, List.of(call(calleeId(), "g"), call(thirdId, "g")));
    Pending toCallee = mailbox.next();
    Pending toThird = mailbox.next();
    deliverTo(toCallee.item().targetKey().equals(calleeId()) ? toCallee : toThird, callee);
    deliverTo(toCallee.item().targetKey().equals(calleeId()) ? toThird : toCallee, third);

    complete(callee, claim(callee), JSON.objectNode().put("from", "b"), List.of());
    deliverTo(mailbox.next(), caller);
    assertEquals(0, caller.getState().inbox().size(), "held until the group is complete");
    assertEquals(
        List.of(new dev.rota.core.model.CallBook.GroupProgress("g", 1, 2)),
        caller.getState().calls().waitingGroups());

    complete(third, claim(third), JSON.objectNode().put("from", "c"), List.of());
    deliverTo(mailbox.next(), caller);
    List<Notification> inbox = caller.getState().inbox();
    assertEquals(2, inbox.size());
    assertEquals(inbox.get(0).receivedAt(), inbox.get(1).receivedAt());
    assertTrue(caller.getState().calls().openCalls().isEmpty());
  }

  private static boolean named(AgentState state, String type, String callId) {
    for (HistoryEntry e : state.history()) {
      if (e.type().equals(type) && callId.equals(e.details().get("callId"))) {
        return true;
      }
    }
    return false;
  }
}
