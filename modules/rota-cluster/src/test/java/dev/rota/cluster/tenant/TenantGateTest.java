package dev.rota.cluster.tenant;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.rota.cluster.testing.MutableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.persistence.testkit.PersistenceTestKitPlugin;
import org.apache.pekko.persistence.testkit.PersistenceTestKitSnapshotPlugin;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * A tenant's gate on the in-memory journal, with a clock the test moves and a lease probe the test
 * answers: the cap held, a release, a lost release recovered only when the agent says its lease is
 * gone, the rate window, and a gate that recovers with its permits.
 */
class TenantGateTest {
  private static final Config CONFIG =
      ConfigFactory.parseString(
              """
              rota.tenants {
                acme { max-concurrent = 2 }
                checked { max-concurrent = 2 }
                dropped { max-concurrent = 2 }
                rated { max-activations-per-minute = 3 }
                recovered { max-concurrent = 2 }
              }
              """)
          .withFallback(PersistenceTestKitPlugin.getInstance().config())
          .withFallback(PersistenceTestKitSnapshotPlugin.config())
          .withFallback(ConfigFactory.load());
  private static final ActorTestKit KIT = ActorTestKit.create("TenantGateTest", CONFIG);
  private static final Instant T0 = Instant.parse("2026-11-27T00:00:00Z");
  private static final TenantCapSettings SETTINGS =
      new TenantCapSettings(
          Duration.ofSeconds(2),
          Duration.ofMillis(20),
          Duration.ofSeconds(5),
          Duration.ofMillis(250));

  @AfterAll
  static void stop() {
    KIT.shutdownTestKit();
  }

  /** A probe the test answers lease by lease; every question is queued for the test to see. */
  private static final class Probe implements LeaseProbe {
    final BlockingQueue<String> asked = new LinkedBlockingQueue<>();
    final Map<String, Optional<Duration>> answers = new ConcurrentHashMap<>();

    @Override
    public CompletionStage<Optional<Duration>> held(String agentKey, String leaseId) {
      asked.add(leaseId);
      Optional<Duration> answer = answers.get(leaseId);
      return answer == null
          ? CompletableFuture.failedFuture(new IllegalStateException("no answer"))
          : CompletableFuture.completedFuture(answer);
    }

    String nextAsked() throws InterruptedException {
      String leaseId = asked.poll(10, TimeUnit.SECONDS);
      if (leaseId == null) {
        throw new AssertionError("the gate asked about no lease");
      }
      return leaseId;
    }
  }

  private static TenantGate.Answer acquire(ActorRef<TenantGate.Command> gate, String leaseId) {
    TestProbe<TenantGate.Answer> reply = KIT.createTestProbe();
    gate.tell(new TenantGate.Acquire("agent-" + leaseId, leaseId, 30, reply.ref()));
    return reply.receiveMessage();
  }

  private static TenantGate.Status status(ActorRef<TenantGate.Command> gate) {
    TestProbe<TenantGate.Status> reply = KIT.createTestProbe();
    gate.tell(new TenantGate.GetStatus(reply.ref()));
    return reply.receiveMessage();
  }

  @Test
  void holdsTheCapAndReleasesFreeARoom() {
    MutableClock clock = new MutableClock(T0);
    var gate = KIT.spawn(TenantGate.create("acme", SETTINGS, new Probe(), clock));

    assertEquals(new TenantGate.Permitted("a:1"), acquire(gate, "a:1"));
    assertEquals(new TenantGate.Permitted("b:1"), acquire(gate, "b:1"));
    assertEquals(new TenantGate.Refused(Permits.TENANT_CAP, null), acquire(gate, "c:1"));
    // The same lease asking again (its first answer lost) is not a third.
    assertEquals(new TenantGate.Permitted("a:1"), acquire(gate, "a:1"));

    gate.tell(new TenantGate.Release("a:1", "completed"));
    assertEquals(new TenantGate.Permitted("c:1"), acquire(gate, "c:1"));
    assertEquals(new TenantGate.Refused(Permits.TENANT_CAP, null), acquire(gate, "d:1"));
    TenantGate.Status status = status(gate);
    assertEquals(2, status.held());
    assertEquals(2, status.maxConcurrent());
    assertEquals(List.of("b:1", "c:1"), status.leaseIds());
  }

  @Test
  void aPermitWhoseLeaseIsStillHeldIsKeptPastItsExpiry() throws InterruptedException {
    MutableClock clock = new MutableClock(T0);
    Probe probe = new Probe();
    var gate = KIT.spawn(TenantGate.create("checked", SETTINGS, probe, clock));
    acquire(gate, "a:1");
    acquire(gate, "b:1");

    // Heartbeats kept both beyond their first lease: their agents say 40 s and 100 s are left.
    probe.answers.put("a:1", Optional.of(Duration.ofSeconds(40)));
    probe.answers.put("b:1", Optional.of(Duration.ofSeconds(100)));
    clock.advance(Duration.ofSeconds(36));
    Instant asked = clock.instant();
    // Both are asked about, and kept: a:1 is asked again when its agent said it ends, plus grace.
    TestProbe<Object> waiting = KIT.createTestProbe();
    waiting.awaitAssert(
        Duration.ofSeconds(10),
        () -> {
          assertEquals(asked.plusSeconds(40 + 5), status(gate).nextCheckAt());
          return null;
        });
    assertEquals(List.of("a:1", "b:1"), status(gate).leaseIds());
    assertEquals(new TenantGate.Refused(Permits.TENANT_CAP, null), acquire(gate, "c:1"));

    probe.asked.clear();
    clock.advance(Duration.ofSeconds(46));
    assertEquals("a:1", probe.nextAsked());
    assertEquals(2, status(gate).held());
    assertEquals(new TenantGate.Refused(Permits.TENANT_CAP, null), acquire(gate, "c:1"));
  }

  @Test
  void aLostReleaseIsRecoveredWhenTheAgentNoLongerHoldsTheLease() throws InterruptedException {
    MutableClock clock = new MutableClock(T0);
    Probe probe = new Probe();
    var gate = KIT.spawn(TenantGate.create("dropped", SETTINGS, probe, clock));
    acquire(gate, "a:1");
    acquire(gate, "b:1");

    // Neither is answered at first (their agents moving nodes): they keep their permits.
    clock.advance(Duration.ofSeconds(36));
    probe.nextAsked();
    assertEquals(new TenantGate.Refused(Permits.TENANT_CAP, null), acquire(gate, "c:1"));

    // Then its agent says it does not hold it: dropped, and there is room.
    probe.answers.put("a:1", Optional.empty());
    probe.answers.put("b:1", Optional.of(Duration.ofSeconds(100)));
    TestProbe<TenantGate.Status> waiting = KIT.createTestProbe();
    waiting.awaitAssert(
        Duration.ofSeconds(10),
        () -> {
          assertEquals(List.of("b:1"), status(gate).leaseIds());
          return null;
        });
    assertEquals(new TenantGate.Permitted("c:1"), acquire(gate, "c:1"));
  }

  @Test
  void theRateCapCountsGrantsOfTheLastMinute() {
    MutableClock clock = new MutableClock(T0);
    var gate = KIT.spawn(TenantGate.create("rated", SETTINGS, new Probe(), clock));
    for (int i = 1; i <= 3; i++) {
      assertInstanceOf(TenantGate.Permitted.class, acquire(gate, "a:" + i));
      gate.tell(new TenantGate.Release("a:" + i, "completed"));
      clock.advance(Duration.ofSeconds(10));
    }
    assertEquals(
        new TenantGate.Refused(Permits.TENANT_RATE, T0.plusSeconds(60)), acquire(gate, "a:4"));
    TenantGate.Status status = status(gate);
    assertEquals(3, status.lastMinute());
    assertEquals(T0.plusSeconds(60), status.rateUntil());
    assertEquals(0, status.held());

    clock.advance(Duration.ofSeconds(30));
    assertInstanceOf(TenantGate.Permitted.class, acquire(gate, "a:4"));
    assertNull(status(gate).maxConcurrent());
  }

  @Test
  void aGateRecoversItsPermits() {
    MutableClock clock = new MutableClock(T0);
    var gate = KIT.spawn(TenantGate.create("recovered", SETTINGS, new Probe(), clock));
    acquire(gate, "a:1");
    acquire(gate, "b:1");
    KIT.stop(gate);

    var again = KIT.spawn(TenantGate.create("recovered", SETTINGS, new Probe(), clock));
    assertEquals(List.of("a:1", "b:1"), status(again).leaseIds());
    assertEquals(new TenantGate.Refused(Permits.TENANT_CAP, null), acquire(again, "c:1"));
  }
}
