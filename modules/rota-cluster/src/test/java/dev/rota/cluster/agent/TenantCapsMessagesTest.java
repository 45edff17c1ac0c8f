package dev.rota.cluster.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import dev.rota.cluster.tenant.TenantGate;
import dev.rota.core.scheduling.AgentSchedule;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * The agent's side of tenant caps: a denial by its tenant crosses nodes to the dispatcher with its
 * {@code until}; the gate's answer comes back as the agent's own command; the gate's question about
 * a lease is read from the agent's answers.
 */
class TenantCapsMessagesTest {
  private static final ActorTestKit KIT =
      ActorTestKit.create(
          "TenantCapsMessagesTest",
          ConfigFactory.parseString("pekko.actor.serialize-messages = off")
              .withFallback(ConfigFactory.load()));

  @AfterAll
  static void stop() {
    KIT.shutdownTestKit();
  }

  @Test
  void aDenialByTheTenantAndTheGatesAnswerSurviveSerialization() {
    Instant at = Instant.parse("2026-11-27T00:00:00.5Z");
    AgentSchedule schedule =
        new AgentSchedule(
            "acme/a1", Set.of("code"), 0, 1, at, null, Duration.ZERO, false, false, null, null);
    for (Object message :
        List.of(
            new AgentEntity.Denied(AgentEntity.TENANT_RATE, schedule, true, 7, at),
            new AgentEntity.Denied(AgentEntity.TENANT_CAP, schedule, true, 7),
            new AgentEntity.PermitAnswered("acme/a1:3", new TenantGate.Permitted("acme/a1:3")),
            new AgentEntity.PermitAnswered("acme/a1:3", new TenantGate.Refused("tenant_cap", null)),
            new AgentEntity.PermitAnswered("acme/a1:3", null))) {
      assertEquals(message, KIT.serializationTestKit().verifySerialization(message, true));
    }
  }

  @Test
  void onlyTheTenantsReasonsAreDenialsByTheTenant() {
    AgentSchedule schedule =
        new AgentSchedule(
            "a1", Set.of(), 0, 1, null, null, Duration.ZERO, false, false, null, null);
    for (String reason :
        List.of(
            AgentEntity.TENANT_CAP, AgentEntity.TENANT_RATE, AgentEntity.TENANT_GATE_UNAVAILABLE)) {
      assertTrue(new AgentEntity.Denied(reason, schedule, true, 1).byTenant(), reason);
    }
    assertFalse(new AgentEntity.Denied("leased", schedule, true, 1).byTenant());
    assertFalse(new AgentEntity.Denied(AgentEntity.AVOIDING_RUNNER, schedule, true, 1).byTenant());
  }

  @Test
  void theGatesQuestionIsReadFromTheAgentsAnswers() {
    assertEquals(
        Optional.of(Duration.ofMillis(1500)),
        AgentLeaseProbe.left(new AgentEntity.LeaseLive(1500)));
    assertEquals(Optional.empty(), AgentLeaseProbe.left(new AgentEntity.LeaseGone("a1:1")));
    assertEquals(Optional.empty(), AgentLeaseProbe.left(new AgentEntity.Done(Instant.EPOCH)));
  }
}
