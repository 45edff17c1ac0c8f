package dev.rota.cluster.tenant;

import com.typesafe.config.ConfigFactory;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * A gate's messages cross nodes (agents ask it from any node) and its events and state are stored.
 */
class TenantGateMessagesTest {
  private static final ActorTestKit KIT =
      ActorTestKit.create(
          "TenantGateMessagesTest",
          ConfigFactory.parseString("pekko.actor.serialize-messages = off")
              .withFallback(ConfigFactory.load()));

  @AfterAll
  static void stop() {
    KIT.shutdownTestKit();
  }

  @Test
  void messagesEventsAndStateSurviveSerialization() {
    var serialization = KIT.serializationTestKit();
    var answers = KIT.<TenantGate.Answer>createTestProbe();
    var statuses = KIT.<TenantGate.Status>createTestProbe();
    Instant at = Instant.parse("2026-11-27T00:00:00.123456789Z");
    Permits permits =
        Permits.EMPTY
            .granted("acme/a", "acme/a:1", at, at.plusSeconds(305))
            .granted("acme/b", "acme/b:7", at.plusSeconds(1), at.plusSeconds(306))
            .checked("acme/a:1", at.plusSeconds(400));
    for (Object message :
        List.of(
            new TenantGate.Acquire("acme/a", "acme/a:1", 300, answers.ref()),
            new TenantGate.Release("acme/a:1", "lease ended"),
            new TenantGate.GetStatus(statuses.ref()),
            new TenantGate.Permitted("acme/a:1"),
            new TenantGate.Refused(Permits.TENANT_CAP, null),
            new TenantGate.Refused(Permits.TENANT_RATE, at),
            new TenantGate.Status("acme", 2, 2, 5, null, null, List.of("acme/a:1", "acme/b:7"), at),
            new TenantGate.Status("acme", 0, null, 3, 3, at, List.of(), null),
            new TenantGate.PermitGranted("acme/a", "acme/a:1", at, at.plusSeconds(305)),
            new TenantGate.PermitReleased("acme/a:1", "lease not held", at),
            new TenantGate.PermitChecked("acme/a:1", at),
            permits,
            new Permits(Map.of(), List.of(), 0))) {
      serialization.verifySerialization(message, true);
    }
  }
}
