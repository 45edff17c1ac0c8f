package dev.rota.faults.check;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.faults.history.Event;
import dev.rota.faults.history.Event.ClockSkew;
import dev.rota.faults.history.Event.CompleteAttempt;
import dev.rota.faults.history.Event.Granted;
import dev.rota.faults.history.Event.Outcome;
import dev.rota.faults.history.Event.Published;
import dev.rota.faults.history.Event.Renewed;
import dev.rota.faults.history.History;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The cap checker against hand-made histories: held caps pass, each kind of excess fails. */
class CapCheckerTest {
  private static final Map<String, Integer> ACME_TWO = Map.of("acme", 2);

  private static Granted granted(String leaseId, String agent, long grantedAt, long expiresAt) {
    return new Granted(
        "r", 1, leaseId, agent, grantedAt, expiresAt, List.of(), grantedAt, grantedAt + 5);
  }

  private static CompleteAttempt complete(String leaseId, String agent, long at, Outcome outcome) {
    return new CompleteAttempt(leaseId, agent, 1, at, at + 20, outcome);
  }

  /** acme holds two leases at most at once: a third starts only after one's completion was sent. */
  private static List<Event> atTheCap() {
    List<Event> h = new ArrayList<>();
    h.add(granted("acme/a:1", "acme/a", 1_000, 31_000));
    h.add(granted("acme/b:1", "acme/b", 1_100, 31_100));
    h.add(complete("acme/a:1", "acme/a", 2_000, Outcome.OK));
    h.add(granted("acme/c:1", "acme/c", 2_030, 32_030));
    // b:1 is never completed: it is held until its expiry, renewed once.
    h.add(new Renewed("acme/b:1", 20_000, 20_010, Outcome.OK, 50_000));
    h.add(complete("acme/c:1", "acme/c", 40_000, Outcome.OK));
    h.add(granted("acme/a:2", "acme/a", 50_000, 80_000));
    // Another tenant is not capped: any number at once.
    for (int i = 0; i < 5; i++) {
      h.add(granted("free/f" + i + ":1", "free/f" + i, 1_000, 31_000));
    }
    return h;
  }

  @Test
  void aHistoryAtItsCapPasses() {
    CapChecker.Result result = CapChecker.check(atTheCap(), ACME_TWO);
    assertTrue(result.held(), result.excesses().toString());
    assertEquals(2, result.maxHeld().get("acme"));
  }

  @Test
  void aThirdLeaseGrantedBeforeACompletionWasSentFails() {
    List<Event> h = atTheCap();
    h.add(granted("acme/d:1", "acme/d", 1_500, 31_500));
    h.add(complete("acme/d:1", "acme/d", 1_600, Outcome.OK));
    CapChecker.Result result = CapChecker.check(h, ACME_TWO);
    assertFalse(result.held());
    assertEquals(1, result.excesses().size());
    CapChecker.Excess excess = result.excesses().get(0);
    assertEquals("acme", excess.tenant());
    assertEquals(1_500, excess.atMs());
    assertEquals(List.of("acme/a:1", "acme/b:1", "acme/d:1"), excess.leaseIds());
    assertEquals(3, result.maxHeld().get("acme"));
  }

  @Test
  void aLeaseKeptByAHeartbeatStillCountsPastItsFirstExpiry() {
    List<Event> h = atTheCap();
    // b:1 was renewed until 50 s: a grant at 31.5 s, while c:1 (until 32.03 s) is held too, is a
    // third; without the renewal b:1 would have ended at 31.1 s.
    h.add(granted("acme/e:1", "acme/e", 31_500, 61_500));
    CapChecker.Result result = CapChecker.check(h, ACME_TWO);
    assertFalse(result.held());
    assertEquals(31_500, result.excesses().get(0).atMs());
    h.removeIf(e -> e instanceof Renewed);
    assertTrue(CapChecker.check(h, ACME_TWO).held());
  }

  @Test
  void aLeaseEndsWhenItsCompletionIsSentWhateverTheAnswer() {
    List<Event> h = atTheCap();
    // c:1's first completion at 40 s went unanswered: it may have ended then; a grant after is
    // fine.
    h.add(complete("acme/c:1", "acme/c", 39_000, Outcome.FAILED));
    h.add(granted("acme/g:1", "acme/g", 39_500, 69_500));
    assertTrue(CapChecker.check(h, ACME_TWO).held());
  }

  @Test
  void aDefaultTenantCapCountsAgentsWithoutATenant() {
    List<Event> h = new ArrayList<>();
    h.add(granted("a:1", "a", 1_000, 31_000));
    h.add(granted("b:1", "b", 1_001, 31_001));
    h.add(granted("c:1", "c", 1_002, 31_002));
    assertFalse(CapChecker.check(h, Map.of(CapChecker.DEFAULT_TENANT, 2)).held());
    assertTrue(CapChecker.check(h, Map.of(CapChecker.DEFAULT_TENANT, 3)).held());
  }

  @Test
  void serverTimesOfASkewedNodeAreMappedBack(@TempDir Path dir) {
    // Node 2 runs 30 s fast: its grant at "31 s" was at 1.5 s on the machine's clock, while two
    // leases were held.
    List<Event> h = atTheCap();
    h.add(new ClockSkew(2, 30_000, 0));
    h.add(new Granted("r", 2, "acme/s:1", "acme/s", 31_500, 61_500, List.of(), 1_400, 1_600));
    CapChecker.Result result = CapChecker.check(h, ACME_TWO);
    assertFalse(result.held());

    // And a history written and read back is checked the same.
    History history = new History();
    h.forEach(history::add);
    history.write(dir.resolve("history.jsonl"));
    assertFalse(CapChecker.check(History.read(dir.resolve("history.jsonl")), ACME_TWO).held());
  }

  @Test
  void anInterruptedLeaseEndsWhenTheInterruptWasSentNotWhenItsRunnerReports() {
    List<Event> h = atTheCap();
    // c:1 (held from 2.03 s) is interrupted by a publish sent at 3 s; the agent is granted again at
    // 3.05 s while b:1 is held too. c:1's runner reports only at 40 s.
    h.add(
        new Published("acme/c", "acme/c-7", 1, 3_000, 3_040, Outcome.OK, "n7", "202 interrupted"));
    h.add(granted("acme/c:2", "acme/c", 3_050, 33_050));
    CapChecker.Result result = CapChecker.check(h, ACME_TWO);
    assertTrue(result.held(), result.excesses().toString());

    // Without the interrupt, c:1 is still held when c:2 is granted: a third lease.
    List<Event> noInterrupt = new ArrayList<>(atTheCap());
    noInterrupt.add(
        new Published("acme/c", "acme/c-7", 1, 3_000, 3_040, Outcome.OK, "n7", "202 steered"));
    noInterrupt.add(granted("acme/c:2", "acme/c", 3_050, 33_050));
    CapChecker.Result unexplained = CapChecker.check(noInterrupt, ACME_TWO);
    assertFalse(unexplained.held());
    assertEquals(
        List.of("acme/b:1", "acme/c:1", "acme/c:2"), unexplained.excesses().get(0).leaseIds());
  }
}
