package dev.rota.cluster.tenant;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.core.tenant.TenantSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The rules of a tenant's caps, without actors. */
class PermitsTest {
  private static final Instant T0 = Instant.parse("2026-11-27T00:00:00Z");
  private static final TenantSpec TWO_AT_ONCE = new TenantSpec("acme", 1, 2, null);
  private static final TenantSpec THREE_A_MINUTE = new TenantSpec("acme", 1, null, 3);

  private static Permits grant(Permits p, String leaseId, Instant at) {
    return p.granted("acme/" + leaseId, leaseId, at, at.plusSeconds(60));
  }

  @Test
  void theCapRefusesAThirdLeaseUntilOneIsReleased() {
    Permits p = grant(grant(Permits.EMPTY, "a:1", T0), "b:1", T0);

    Permits.Decision third = p.decide(TWO_AT_ONCE, "c:1", T0);
    assertEquals(new Permits.Refuse(Permits.TENANT_CAP, null), third);

    Permits released = p.released("a:1");
    assertInstanceOf(Permits.Allow.class, released.decide(TWO_AT_ONCE, "c:1", T0));
    assertEquals(1, released.permits().size());
  }

  @Test
  void aLeaseThatHoldsAPermitIsPermittedAgainWithoutCountingTwice() {
    Permits p = grant(grant(Permits.EMPTY, "a:1", T0), "b:1", T0);

    assertInstanceOf(Permits.Allow.class, p.decide(TWO_AT_ONCE, "a:1", T0));
    Permits again = grant(p, "a:1", T0.plusSeconds(1));
    assertEquals(2, again.permits().size());
    assertEquals(2, again.inWindow(T0.plusSeconds(1)));
  }

  @Test
  void aReleaseOfAnUnknownLeaseChangesNothing() {
    Permits p = grant(Permits.EMPTY, "a:1", T0);
    assertEquals(p, p.released("zzz:9"));
  }

  @Test
  void theRateCapSlidesItsMinute() {
    Permits p = Permits.EMPTY;
    p = grant(p, "a:1", T0);
    p = grant(p, "a:2", T0.plusSeconds(10));
    p = grant(p, "a:3", T0.plusSeconds(20));
    Instant now = T0.plusSeconds(30);

    // Three grants in the minute: the next fits when the first of them leaves the window.
    Permits.Decision d = p.decide(THREE_A_MINUTE, "a:4", now);
    assertEquals(new Permits.Refuse(Permits.TENANT_RATE, T0.plusSeconds(60)), d);
    assertEquals(3, p.inWindow(now));

    // At exactly a minute after the first grant it has left the window.
    assertInstanceOf(Permits.Allow.class, p.decide(THREE_A_MINUTE, "a:4", T0.plusSeconds(60)));
    assertInstanceOf(
        Permits.Refuse.class, p.decide(THREE_A_MINUTE, "a:4", T0.plusSeconds(60).minusMillis(1)));
  }

  @Test
  void releasesDoNotGiveBackRate() {
    Permits p = Permits.EMPTY;
    for (int i = 1; i <= 3; i++) {
      p = grant(p, "a:" + i, T0.plusSeconds(i)).released("a:" + i);
    }
    assertTrue(p.permits().isEmpty());
    assertEquals(
        Permits.TENANT_RATE,
        ((Permits.Refuse) p.decide(THREE_A_MINUTE, "a:4", T0.plusSeconds(5))).reason());
  }

  @Test
  void grantsOlderThanTheWindowAreForgotten() {
    Permits p = grant(Permits.EMPTY, "a:1", T0);
    p = grant(p, "a:2", T0.plusSeconds(61));
    assertEquals(List.of(T0.plusSeconds(61)), p.grants());
  }

  @Test
  void bothCapsTogether() {
    TenantSpec both = new TenantSpec("acme", 1, 1, 2);
    Permits p = grant(Permits.EMPTY, "a:1", T0);
    assertEquals(Permits.TENANT_CAP, ((Permits.Refuse) p.decide(both, "b:1", T0)).reason());
    p = grant(p.released("a:1"), "b:1", T0.plusSeconds(1)).released("b:1");
    assertEquals(
        new Permits.Refuse(Permits.TENANT_RATE, T0.plusSeconds(60)),
        p.decide(both, "c:1", T0.plusSeconds(2)));
    assertNull(p.rateUntil(2, T0.plusSeconds(60)));
  }

  @Test
  void aPermitIsDueWhenItsCheckTimeHasPassedAndAnAnswerAboutAnOlderTakingDoesNotApply() {
    Permits p = grant(Permits.EMPTY, "a:1", T0);
    assertTrue(p.due(T0.plusSeconds(59)).isEmpty());
    Permits.Permit due = p.due(T0.plusSeconds(60)).get(0);
    assertTrue(p.holds("a:1", due.generation()));

    // Asked about again later: not due before then.
    Permits checked = p.checked("a:1", T0.plusSeconds(120));
    assertTrue(checked.due(T0.plusSeconds(100)).isEmpty());
    assertTrue(checked.holds("a:1", due.generation()));

    // Taken again (the same lease id, a new grant): the first question's answer is stale.
    Permits again = grant(p, "a:1", T0.plusSeconds(61));
    assertFalse(again.holds("a:1", due.generation()));
  }

  @Test
  void anUncappedSpecAlwaysAllows() {
    Permits p = grant(grant(grant(Permits.EMPTY, "a:1", T0), "b:1", T0), "c:1", T0);
    assertInstanceOf(Permits.Allow.class, p.decide(TenantSpec.plain("acme"), "d:1", T0));
    assertEquals(Duration.ofMinutes(1), Permits.WINDOW);
  }
}
