package dev.rota.cluster.assign;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.cluster.agent.AgentEntity;
import dev.rota.core.scheduling.AgentSchedule;
import java.time.Duration;
import java.time.Instant;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Which tenants a dispatcher passes over after a denial by the tenant, and for how long. */
class TenantHoldsTest {
  private static final Instant NOW = Instant.parse("2026-11-27T00:00:00Z");
  private static final long T = 1_000_000_000L;

  private static AgentEntity.Denied denied(String reason, Instant until) {
    AgentSchedule schedule =
        new AgentSchedule("x", Set.of(), 0, 1, null, null, Duration.ZERO, false, false, null, null);
    return new AgentEntity.Denied(reason, schedule, true, 1, until);
  }

  @Test
  void aTenantAtItsCapIsPassedOverForTheHoldAndOthersAreNot() {
    TenantHolds holds = new TenantHolds(Duration.ofMillis(250));
    assertEquals(
        Duration.ofMillis(250),
        holds.hold("acme/a1", denied(AgentEntity.TENANT_CAP, null), NOW, T));
    assertFalse(holds.usable("acme/a2", T + 1));
    assertTrue(holds.usable("other/a1", T + 1));
    assertTrue(holds.usable("a1", T + 1));
    assertTrue(holds.usable("acme/a2", T + Duration.ofMillis(250).toNanos()));
    assertEquals(Duration.ofMillis(249), holds.forgetEnded(T + Duration.ofMillis(1).toNanos()));
    assertNull(holds.forgetEnded(T + Duration.ofMillis(250).toNanos()));
  }

  @Test
  void aTenantAtItsRateIsPassedOverUntilTheWindowHasRoomButNeverBeyondIt() {
    TenantHolds holds = new TenantHolds(Duration.ofMillis(250));
    assertEquals(
        Duration.ofSeconds(12),
        holds.hold("acme/a1", denied(AgentEntity.TENANT_RATE, NOW.plusSeconds(12)), NOW, T));
    assertFalse(holds.usable("acme/a9", T + Duration.ofSeconds(11).toNanos()));
    assertEquals(
        Duration.ofMinutes(1),
        holds.hold("b/a1", denied(AgentEntity.TENANT_RATE, NOW.plusSeconds(600)), NOW, T));
    // An until already past (another node's clock) still holds for the hold.
    assertEquals(
        Duration.ofMillis(250),
        holds.hold("c/a1", denied(AgentEntity.TENANT_RATE, NOW.minusSeconds(1)), NOW, T));
  }

  @Test
  void aTenantWhoseGateDidNotAnswerIsPassedOverLonger() {
    TenantHolds holds = new TenantHolds(Duration.ofMillis(250));
    assertEquals(
        Duration.ofSeconds(1),
        holds.hold("acme/a1", denied(AgentEntity.TENANT_GATE_UNAVAILABLE, null), NOW, T));
  }
}
