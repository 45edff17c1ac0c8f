package dev.rota.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.client.CancellationToken.Reason;
import dev.rota.client.testing.Eventually;
import dev.rota.client.testing.RealNode;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The runner loop against a real node, including leases that are lost while a handler runs. */
@ExtendWith(RealNode.class)
class RotaRunnerTest {
  private static final Duration WAIT = Duration.ofSeconds(30);

  private RotaClient client;
  private String capability;
  private final Events events = new Events();

  @BeforeEach
  void connect() {
    client = RotaClient.builder(RealNode.uri()).build();
    capability = "cap-" + UUID.randomUUID();
  }

  @AfterEach
  void disconnect() {
    client.close();
  }

  private String agentWithMail(int notifications) {
    String id = "agent-" + UUID.randomUUID();
    client.registerAgent(id, AgentSpec.create().capabilities(capability));
    for (int i = 0; i < notifications; i++) {
      client.notify(id, Notification.of("mention").dedupeKey(id + "-" + i));
    }
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

  @Test
  void runsTheHandlerAndCompletesEveryActivation() {
    List<String> agents = List.of(agentWithMail(2), agentWithMail(1), agentWithMail(3));
    List<String> seen = new CopyOnWriteArrayList<>();
    try (RotaRunner runner =
        runner(
                activation -> {
                  seen.add(
                      activation.agentId() + ":" + activation.assignment().notifications().size());
                  return Outcome.complete();
                })
            .slots(2)
            .start()) {
      Eventually.await(
          "three activations reported", WAIT, () -> events.reported.size() >= 3 ? 1 : null);
    }
    for (String agent : agents) {
      Agent view = client.getAgent(agent);
      assertEquals(0, view.inbox().unread(), agent);
      assertEquals(1, view.activationCount(), agent);
    }
    assertEquals(
        Set.of(agents.get(0) + ":2", agents.get(1) + ":1", agents.get(2) + ":3"), Set.copyOf(seen));
    assertNoRunnerThreads();
  }

  /**
   * While work waits, a turn is one request: each report carries the slot's next claim, so the node
   * sees one claim for the first activation and none for the next ones.
   */
  @Test
  void whileWorkWaitsEachReportCarriesTheNextClaim() throws Exception {
    List<String> agents =
        List.of(agentWithMail(1), agentWithMail(1), agentWithMail(1), agentWithMail(1));
    double claimsBefore = requests("/v1/claims");
    double completionsBefore = requests("/v1/leases/{leaseId}/complete");
    try (RotaRunner runner = runner(activation -> Outcome.complete()).waitSeconds(5).start()) {
      Eventually.await(
          "four activations reported", WAIT, () -> events.reported.size() >= 4 ? 1 : null);
      // The first claim, and at most the long poll the slot began once the fourth report's claim
      // found nothing; a claim per turn would be four.
      double claims = requests("/v1/claims") - claimsBefore;
      assertTrue(claims <= 2, claims + " claims for four turns");
      assertEquals(4.0, requests("/v1/leases/{leaseId}/complete") - completionsBefore);
    }
    for (String agent : agents) {
      assertEquals(1, client.getAgent(agent).activationCount(), agent);
    }
  }

  /** Answered POST requests of an API route so far, from the node's {@code /metrics}. */
  private static double requests(String route) throws Exception {
    String metrics =
        java.net.http.HttpClient.newHttpClient()
            .send(
                java.net.http.HttpRequest.newBuilder(RealNode.uri().resolve("/metrics")).build(),
                java.net.http.HttpResponse.BodyHandlers.ofString())
            .body();
    double count = 0;
    for (String line : metrics.split("\n")) {
      if (line.startsWith("rota_http_requests_seconds_count{")
          && line.contains("method=\"POST\"")
          && line.contains("route=\"" + route + "\"")) {
        count += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
      }
    }
    return count;
  }

  @Test
  void reportsTheHandlersFailureOutcome() {
    String id = agentWithMail(1);
    try (RotaRunner runner = runner(activation -> Outcome.cancel("wrong agent")).start()) {
      Eventually.await("the failure reported", WAIT, () -> events.reported.isEmpty() ? null : 1);
    }
    assertEquals(
        new Outcome.Failed(Outcome.Action.CANCEL, "wrong agent", Duration.ZERO),
        events.reported.get(0));
    Eventually.await(
        "the dead letter listed", WAIT, () -> client.deadLetters(id, 10).isEmpty() ? null : 1);
  }

  @Test
  void aHandlerThatThrowsIsReportedAsRetry() {
    String id = agentWithMail(1);
    AtomicInteger attempts = new AtomicInteger();
    try (RotaRunner runner =
        runner(
                activation -> {
                  if (attempts.incrementAndGet() == 1) {
                    throw new IllegalStateException("model timeout");
                  }
                  assertEquals(2, activation.assignment().attempt());
                  return Outcome.complete();
                })
            .start()) {
      Eventually.await(
          "retry, then completion", WAIT, () -> events.reported.size() >= 2 ? 1 : null);
    }
    assertTrue(
        events.reported.get(0) instanceof Outcome.Failed failed
            && failed.action() == Outcome.Action.RETRY
            && failed.error().contains("model timeout"),
        events.reported.toString());
    assertEquals(0, client.getAgent(id).inbox().unread());
  }

  /** A runner loop that says it is sick gets no work until it says it is well again. */
  @Test
  void aRunnerThatReportsItselfDegradedGetsNoWorkUntilItReportsHealthy() throws Exception {
    try (RotaRunner runner = runner(activation -> Outcome.complete()).start()) {
      runner.reportHealth(true, "disk full", Duration.ofMinutes(5));
      String id = agentWithMail(1);
      Eventually.await("a refused claim", WAIT, () -> events.refused.isEmpty() ? null : 1);
      assertEquals("degraded", events.refused.get(0));
      // Nothing to await: the runner must stay without work for a while, so time passes.
      Thread.sleep(1_500);
      assertTrue(events.reported.isEmpty(), events.reported.toString());
      assertEquals(1, client.getAgent(id).inbox().unread());

      runner.reportHealth(false, null, Duration.ZERO);
      Eventually.await("the work done", WAIT, () -> events.reported.isEmpty() ? null : 1);
      assertEquals(0, client.getAgent(id).inbox().unread());
    }
    assertNoRunnerThreads();
  }

  /** The handler outlives its 5 s lease; no heartbeat gets through before it runs out. */
  @Test
  void stopsAHandlerThatOutlivesItsLease() throws Exception {
    String id = agentWithMail(1);
    BlockingQueue<String> ended = new ArrayBlockingQueue<>(1);
    CountDownLatch started = new CountDownLatch(1);
    try (RotaRunner runner =
        runner(
                activation -> {
                  started.countDown();
                  try {
                    // A handler far longer than its lease; the runner must interrupt it.
                    Thread.sleep(60_000);
                    ended.add("slept to the end");
                  } catch (InterruptedException e) {
                    ended.add("interrupted: " + activation.cancellation().reason());
                  }
                  return Outcome.complete();
                })
            .lease(Duration.ofSeconds(5))
            .heartbeatInterval(Duration.ofSeconds(60))
            .start()) {
      assertTrue(started.await(30, TimeUnit.SECONDS), "the handler started");
      long startedAt = System.nanoTime();
      assertEquals("interrupted: LEASE_EXPIRED", ended.poll(15, TimeUnit.SECONDS));
      assertTrue(
          System.nanoTime() - startedAt < TimeUnit.SECONDS.toNanos(6), "stopped within the lease");
      Eventually.await("the cancellation heard", WAIT, () -> events.cancelled.isEmpty() ? null : 1);
      assertEquals(List.of(Reason.LEASE_EXPIRED), events.cancelled);
    }
    assertTrue(events.reported.isEmpty(), "nothing reported for a lost lease: " + events.reported);

    // The server expires the lease as a retry: the notification comes back with attempt 2.
    ClaimResult again =
        client.claim("other-" + capability, RunnerMode.NOTIFICATION, Set.of(capability), 20, 30);
    assertTrue(again.assigned(), again.toString());
    assertEquals(id, again.assignment().agentId());
    assertEquals(2, again.assignment().attempt());
    client.complete(again.assignment().leaseId(), "other-" + capability, null);
  }

  /** Another party ends the lease; the runner's next heartbeat gets 410 and stops the handler. */
  @Test
  void stopsAHandlerWhoseLeaseIsLost() throws Exception {
    agentWithMail(1);
    BlockingQueue<Activation> running = new ArrayBlockingQueue<>(1);
    BlockingQueue<String> ended = new ArrayBlockingQueue<>(1);
    try (RotaRunner runner =
        runner(
                activation -> {
                  running.add(activation);
                  // Checks the token instead of sleeping: a handler that ignores interrupts.
                  while (!activation.cancellation().isCancelled()) {
                    Thread.onSpinWait();
                  }
                  ended.add("cancelled: " + activation.cancellation().reason());
                  return Outcome.complete();
                })
            .lease(Duration.ofSeconds(30))
            .heartbeatInterval(Duration.ofMillis(500))
            .start()) {
      Activation activation = running.poll(30, TimeUnit.SECONDS);
      client.fail(
          activation.leaseId(),
          activation.runnerId(),
          Outcome.snooze(Duration.ZERO, "taken back by the test"));

      assertEquals("cancelled: LEASE_LOST", ended.poll(10, TimeUnit.SECONDS));
      Eventually.await("the cancellation heard", WAIT, () -> events.cancelled.isEmpty() ? null : 1);
      assertEquals(List.of(Reason.LEASE_LOST), events.cancelled);
    }
    assertTrue(events.reported.isEmpty(), "nothing reported for a lost lease: " + events.reported);
  }

  @Test
  void stoppingHandsBackAnActivationStillRunningAfterTheGrace() throws Exception {
    String id = agentWithMail(1);
    CountDownLatch started = new CountDownLatch(1);
    RotaRunner runner =
        runner(
                activation -> {
                  started.countDown();
                  activation.cancellation().await(60, TimeUnit.SECONDS);
                  return Outcome.complete();
                })
            .start();
    assertTrue(started.await(30, TimeUnit.SECONDS), "the handler started");

    runner.stop(Duration.ofMillis(200));

    assertEquals(List.of(Reason.SHUTDOWN), events.cancelled);
    Agent agent = client.getAgent(id);
    assertEquals(1, agent.inbox().unread(), "handed back, not completed");
    assertEquals("idle", agent.status(), "handed back at once");
    assertEquals(0, agent.activationCount());
    assertNoRunnerThreads();
  }

  @Test
  void stoppingLetsARunningHandlerFinishWithinTheGrace() throws Exception {
    String id = agentWithMail(1);
    CountDownLatch started = new CountDownLatch(1);
    RotaRunner runner =
        runner(
                activation -> {
                  started.countDown();
                  Thread.sleep(500); // a turn still running when stop() is called
                  return Outcome.complete();
                })
            .start();
    assertTrue(started.await(30, TimeUnit.SECONDS), "the handler started");

    runner.stop(Duration.ofSeconds(20));

    assertEquals(1, events.reported.size());
    assertTrue(events.cancelled.isEmpty());
    assertEquals(0, client.getAgent(id).inbox().unread());
    assertNoRunnerThreads();
  }

  private static void assertNoRunnerThreads() {
    List<String> left =
        Thread.getAllStackTraces().keySet().stream()
            .filter(Thread::isAlive)
            .map(Thread::getName)
            .filter(name -> name.startsWith("rota-runner-"))
            .toList();
    assertFalse(!left.isEmpty(), "threads left after close: " + left);
  }

  /** What the runner told its listener. */
  static final class Events implements RunnerListener {
    final List<Outcome> reported = new CopyOnWriteArrayList<>();
    final List<Reason> cancelled = new CopyOnWriteArrayList<>();
    final List<RuntimeException> errors = new CopyOnWriteArrayList<>();
    final List<String> refused = new CopyOnWriteArrayList<>();

    @Override
    public void onRefused(String slotId, String reason) {
      refused.add(reason);
    }

    @Override
    public void onReported(Assignment assignment, Outcome outcome) {
      reported.add(outcome);
    }

    @Override
    public void onCancelled(Assignment assignment, Reason reason) {
      cancelled.add(reason);
    }

    @Override
    public void onError(String what, RuntimeException error) {
      errors.add(error);
    }
  }
}
