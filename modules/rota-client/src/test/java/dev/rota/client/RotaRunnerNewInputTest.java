package dev.rota.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.client.CancellationToken.Reason;
import dev.rota.client.testing.Eventually;
import dev.rota.client.testing.RealNode;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * New input during a turn through the runner loop, one policy at a time, against a real node: a
 * steered notification reaches the running handler ({@link Activation#input()}), an interrupt
 * cancels it with {@link Reason#INTERRUPTED} and the next turn has everything, a rejecting agent
 * refuses, a queueing one keeps the notification for the next turn.
 */
@ExtendWith(RealNode.class)
class RotaRunnerNewInputTest {
  private static final Duration WAIT = Duration.ofSeconds(30);

  private RotaClient client;
  private String capability;
  private final RotaRunnerTest.Events events = new RotaRunnerTest.Events();

  @BeforeEach
  void connect() {
    client = RotaClient.builder(RealNode.uri()).build();
    capability = "cap-" + UUID.randomUUID();
  }

  @AfterEach
  void disconnect() {
    client.close();
  }

  private String agent(String newInput) {
    String id = "agent-" + UUID.randomUUID();
    client.registerAgent(id, AgentSpec.create().capabilities(capability).newInput(newInput));
    client.notify(id, Notification.of("first"));
    return id;
  }

  private RotaRunner.Builder runner(ActivationHandler handler) {
    return RotaRunner.builder(client, handler)
        .runnerId("test-" + capability)
        .mode(RunnerMode.NOTIFICATION)
        .capabilities(capability)
        .waitSeconds(1)
        .listener(events);
  }

  private static void await(CountDownLatch latch) throws InterruptedException {
    assertTrue(latch.await(WAIT.toSeconds(), TimeUnit.SECONDS), "the handler did not start");
  }

  @Test
  void aSteeredNotificationReachesTheRunningHandler() throws Exception {
    String id = agent("steer");
    CountDownLatch started = new CountDownLatch(1);
    List<String> heard = new CopyOnWriteArrayList<>();
    try (RotaRunner runner =
        runner(
                activation -> {
                  started.countDown();
                  try {
                    activation.input().poll(WAIT).ifPresent(n -> heard.add(n.type()));
                  } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                  }
                  return Outcome.complete();
                })
            .start()) {
      await(started);
      NotifyResult result = client.notify(id, Notification.of("second"));
      assertTrue(result.steered(), result.toString());
      Eventually.await("the turn reported", WAIT, () -> events.reported.isEmpty() ? null : 1);
    }
    assertEquals(List.of("second"), heard);
    Agent view = client.getAgent(id);
    assertEquals(0, view.inbox().unread());
    assertEquals(1, view.activationCount());
  }

  /**
   * The notification is steered into the running turn and reaches the runner, but the handler never
   * takes it: the report does not name it, so it stays unread and the next turn carries it.
   */
  @Test
  void aSteeredNotificationTheHandlerNeverTookIsTheNextTurns() throws Exception {
    String id = agent("steer");
    CountDownLatch started = new CountDownLatch(1);
    CountDownLatch steered = new CountDownLatch(1);
    List<List<String>> turns = new CopyOnWriteArrayList<>();
    try (RotaRunner runner =
        runner(
                activation -> {
                  turns.add(
                      activation.assignment().notifications().stream()
                          .map(Assignment.Item::type)
                          .toList());
                  started.countDown();
                  try {
                    steered.await(WAIT.toSeconds(), TimeUnit.SECONDS);
                    // Long enough for the input poll to hand it to the runner.
                    Thread.sleep(300);
                  } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                  }
                  return Outcome.complete();
                })
            .start()) {
      await(started);
      NotifyResult result = client.notify(id, Notification.of("second"));
      assertTrue(result.steered(), result.toString());
      steered.countDown();
      Eventually.await("two turns reported", WAIT, () -> events.reported.size() < 2 ? null : 1);
    }
    assertEquals(List.of(List.of("first"), List.of("second")), turns);
    assertEquals(0, client.getAgent(id).inbox().unread());
  }

  @Test
  void aNotificationsOwnSteerReachesTheHandlerThroughItsCallback() throws Exception {
    String id = agent("queue");
    CountDownLatch started = new CountDownLatch(1);
    CountDownLatch heard = new CountDownLatch(1);
    List<String> types = new CopyOnWriteArrayList<>();
    try (RotaRunner runner =
        runner(
                activation -> {
                  activation
                      .input()
                      .onInput(
                          n -> {
                            types.add(n.type());
                            heard.countDown();
                          });
                  started.countDown();
                  try {
                    heard.await(WAIT.toSeconds(), TimeUnit.SECONDS);
                  } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                  }
                  return Outcome.complete();
                })
            .followInput(RotaRunner.FollowInput.ALWAYS)
            .start()) {
      await(started);
      client.notify(id, Notification.of("second").newInput("steer"));
      Eventually.await("the turn reported", WAIT, () -> events.reported.isEmpty() ? null : 1);
    }
    assertEquals(List.of("second"), types);
    assertEquals(0, client.getAgent(id).inbox().unread());
  }

  @Test
  void anInterruptCancelsTheHandlerAndTheNextTurnHasEveryNotification() throws Exception {
    String id = agent("interrupt");
    CountDownLatch started = new CountDownLatch(1);
    List<Reason> stoppedFor = new CopyOnWriteArrayList<>();
    List<Integer> carried = new CopyOnWriteArrayList<>();
    try (RotaRunner runner =
        runner(
                activation -> {
                  carried.add(activation.assignment().notifications().size());
                  if (carried.size() == 1) {
                    started.countDown();
                    try {
                      activation.cancellation().await(WAIT.toSeconds(), TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                      // the runner interrupts the handler's thread too
                    }
                    stoppedFor.add(activation.cancellation().reason());
                  }
                  return Outcome.complete();
                })
            .start()) {
      await(started);
      assertTrue(client.notify(id, Notification.of("stop")).interrupted());
      Eventually.await("the next turn reported", WAIT, () -> events.reported.isEmpty() ? null : 1);
    }
    assertEquals(List.of(Reason.INTERRUPTED), stoppedFor);
    assertTrue(events.cancelled.contains(Reason.INTERRUPTED), events.cancelled.toString());
    assertEquals(List.of(1, 2), carried);
    Agent view = client.getAgent(id);
    assertEquals(0, view.inbox().unread());
    assertEquals(1, view.activationCount());
  }

  @Test
  void aRejectingAgentRefusesNewInputWhileItsTurnRuns() throws Exception {
    String id = agent("reject");
    CountDownLatch started = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    try (RotaRunner runner =
        runner(
                activation -> {
                  started.countDown();
                  try {
                    release.await(WAIT.toSeconds(), TimeUnit.SECONDS);
                  } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                  }
                  return Outcome.complete();
                })
            .start()) {
      await(started);
      RotaException.TurnInProgress refused =
          assertThrows(
              RotaException.TurnInProgress.class,
              () -> client.notify(id, Notification.of("second")));
      assertTrue(refused.retryAfter().isPresent());
      release.countDown();
      Eventually.await("the turn reported", WAIT, () -> events.reported.isEmpty() ? null : 1);
    }
    assertEquals(0, client.getAgent(id).inbox().unread());
  }

  @Test
  void aQueueingAgentsTurnHearsNothingAndTheNextTurnHasTheNotification() throws Exception {
    String id = agent("queue");
    CountDownLatch started = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    List<Integer> heard = new CopyOnWriteArrayList<>();
    try (RotaRunner runner =
        runner(
                activation -> {
                  started.countDown();
                  try {
                    release.await(WAIT.toSeconds(), TimeUnit.SECONDS);
                  } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                  }
                  heard.add(activation.input().drain().size());
                  return Outcome.complete();
                })
            .heartbeatInterval(Duration.ofMillis(200))
            .start()) {
      await(started);
      NotifyResult result = client.notify(id, Notification.of("second"));
      assertFalse(result.steered() || result.interrupted());
      // Heartbeats go on meanwhile; none of them carries the queued notification.
      var before = client.getAgent(id).lease().expiresAt();
      Eventually.await(
          "a heartbeat after the notification",
          WAIT,
          () -> before.equals(client.getAgent(id).lease().expiresAt()) ? null : 1);
      release.countDown();
      Eventually.await("two turns reported", WAIT, () -> events.reported.size() >= 2 ? 1 : null);
    }
    assertEquals(List.of(0, 0), heard);
    assertEquals(2, client.getAgent(id).activationCount());
  }
}
