package dev.rota.core.tenant;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * The rule across tenants, simulated: runners ask, {@link TenantShares} picks the tenant, leases
 * run for random turns, and a coordinator's {@link TenantRunnerTime} sees them start and end and
 * publishes (sometimes late) what the dispatcher learns. Time is simulated, in milliseconds.
 */
class TenantSharesRandomizedTest {

  /** One dispatcher, one partition, {@code runners} runners, every tenant's work as given. */
  private static final class Sim {
    final Random random;
    final TenantShares shares;
    final TenantRunnerTime usage = new TenantRunnerTime();
    final Map<String, Integer> weights;
    final Map<String, Double> meanTurn;
    final Set<String> withWork = new TreeSet<>();
    final Map<String, Long> runnerMillis = new HashMap<>();
    final List<String> grants = new ArrayList<>();
    final List<Long> grantTimes = new ArrayList<>();
    final PriorityQueue<long[]> ends = new PriorityQueue<>((a, b) -> Long.compare(a[0], b[0]));
    final List<String> endKeys = new ArrayList<>();
    final double publishLate;
    int idle;
    long now = 1_000_000;

    Sim(
        long seed,
        Map<String, Integer> weights,
        Map<String, Double> meanTurn,
        int runners,
        double publishLate) {
      this.random = new Random(seed);
      this.weights = weights;
      this.meanTurn = meanTurn;
      this.idle = runners;
      this.publishLate = publishLate;
      Map<String, TenantSpec> specs = new LinkedHashMap<>();
      weights.forEach((t, w) -> specs.put(t, new TenantSpec(t, w, null, null)));
      this.shares = new TenantShares(TenantTable.of(specs));
    }

    void publish(boolean always) {
      if (always || random.nextDouble() >= publishLate) {
        shares.accept(0, 1, now, usage.snapshot(now), now);
      }
    }

    /** Runs until {@code until}, the tenants in {@link #withWork} always having work. */
    void runUntil(long until) {
      while (true) {
        while (idle > 0 && !withWork.isEmpty()) {
          List<String> candidates = new ArrayList<>(withWork);
          String tenant =
              candidates.size() == 1 ? candidates.get(0) : shares.choose(candidates, now);
          grant(tenant);
        }
        long next = ends.isEmpty() ? Long.MAX_VALUE : ends.peek()[0];
        if (next > until) {
          now = until;
          return;
        }
        long[] end = ends.poll();
        now = end[0];
        String key = endKeys.get((int) end[1]);
        usage.changed(key, true, false, true, now);
        idle++;
        publish(false);
      }
    }

    private void grant(String tenant) {
      idle--;
      String key = tenant + "/a" + endKeys.size();
      double mean = meanTurn.get(tenant);
      long turn = Math.max(1, Math.round(mean * (0.5 + random.nextDouble())));
      shares.granted(0, tenant, now);
      usage.changed(key, false, true, true, now);
      grants.add(tenant);
      grantTimes.add(now);
      runnerMillis.merge(tenant, turn, Long::sum);
      ends.add(new long[] {now + turn, endKeys.size()});
      endKeys.add(key);
      publish(false);
    }

    double runnerShare(String tenant) {
      long total = runnerMillis.values().stream().mapToLong(Long::longValue).sum();
      return (double) runnerMillis.getOrDefault(tenant, 0L) / total;
    }
  }

  @Test
  void runnerTimeConvergesToTheWeights() {
    for (long seed = 1; seed <= 40; seed++) {
      Random random = new Random(seed);
      int tenants = 2 + random.nextInt(3);
      Map<String, Integer> weights = new LinkedHashMap<>();
      Map<String, Double> turns = new HashMap<>();
      for (int i = 0; i < tenants; i++) {
        String name = "t" + i;
        weights.put(name, 1 + random.nextInt(8));
        turns.put(name, 5.0 + random.nextInt(60));
      }
      int runners = 1 + random.nextInt(8);
      Sim sim = new Sim(seed, weights, turns, runners, random.nextDouble() * 0.5);
      sim.withWork.addAll(weights.keySet());
      sim.runUntil(sim.now + 120_000);
      int total = weights.values().stream().mapToInt(Integer::intValue).sum();
      for (String t : weights.keySet()) {
        double fair = (double) weights.get(t) / total;
        double actual = sim.runnerShare(t);
        assertTrue(
            Math.abs(actual - fair) <= 0.02,
            "seed "
                + seed
                + ": "
                + t
                + " had "
                + actual
                + " of the runner time, its share "
                + fair
                + " (weights "
                + weights
                + ", turns "
                + turns
                + ", "
                + runners
                + " runners)");
      }
    }
  }

  @Test
  void grantsFollowTheWeightsWhenTurnsAreEqual() {
    Sim sim = new Sim(7, Map.of("acme", 3, "beta", 1), Map.of("acme", 20.0, "beta", 20.0), 4, 0.3);
    sim.withWork.addAll(Set.of("acme", "beta"));
    sim.runUntil(sim.now + 60_000);
    long acme = sim.grants.stream().filter("acme"::equals).count();
    double share = (double) acme / sim.grants.size();
    assertTrue(Math.abs(share - 0.75) <= 0.02, "acme had " + share + " of the grants");
  }

  @Test
  void aTenantOfWeightOneIsNotStarvedBesideOneOfAThousand() {
    Sim sim =
        new Sim(11, Map.of("big", 1000, "small", 1), Map.of("big", 20.0, "small", 20.0), 2, 0.5);
    sim.withWork.addAll(Set.of("big", "small"));
    long start = sim.now;
    sim.runUntil(start + 120_000);
    List<Long> small = new ArrayList<>();
    for (int i = 0; i < sim.grants.size(); i++) {
      if (sim.grants.get(i).equals("small")) {
        small.add(sim.grantTimes.get(i));
      }
    }
    // Its share is 1/1001 of 2 runners' 120 s: 0.24 s, twelve turns of 20 ms.
    assertTrue(small.size() >= 8, "small had " + small.size() + " turns");
    long previous = start;
    long longestGap = 0;
    for (long at : small) {
      longestGap = Math.max(longestGap, at - previous);
      previous = at;
    }
    longestGap = Math.max(longestGap, sim.now - previous);
    // One of its turns per 1001 turns' worth of runner time: 1001 x 20 ms / 2 runners = 10 s,
    // with room for the turns' spread (10-30 ms).
    assertTrue(longestGap <= 17_000, "small waited " + longestGap + " ms between turns");
  }

  @Test
  void aTenantThatResumesGetsAtMostOneRoundOfOwedTurns() {
    for (long seed = 1; seed <= 20; seed++) {
      Random random = new Random(seed);
      int wa = 1 + random.nextInt(4);
      int wb = 1 + random.nextInt(4);
      int runners = 1 + random.nextInt(6);
      Sim sim = new Sim(seed, Map.of("a", wa, "b", wb), Map.of("a", 20.0, "b", 20.0), runners, 0.3);
      sim.withWork.addAll(Set.of("a", "b"));
      sim.runUntil(sim.now + 10_000);
      // b stops for 30 s while a takes every runner, then comes back.
      sim.withWork.remove("b");
      sim.runUntil(sim.now + 30_000);
      int from = sim.grants.size();
      sim.withWork.add("b");
      sim.runUntil(sim.now + 10_000);
      List<String> after = sim.grants.subList(from, sim.grants.size());
      int window = 8 * (wa + wb);
      long b = after.subList(0, window).stream().filter("b"::equals).count();
      double expected = (double) window * wb / (wa + wb);
      // Its share of the window, plus at most one round (its weight's turns) and the runners it
      // takes at once when it comes back.
      assertTrue(
          b <= expected + wb + runners,
          "seed "
              + seed
              + ": b had "
              + b
              + " of the first "
              + window
              + " grants after it resumed"
              + " (weights "
              + wa
              + ":"
              + wb
              + ", "
              + runners
              + " runners)");
      assertTrue(
          b >= expected - wb - runners,
          "seed " + seed + ": b had only " + b + " of the first " + window + " grants");
    }
  }

  @Test
  void withOneTenantNothingIsChosen() {
    Sim sim = new Sim(3, Map.of("default", 1), Map.of("default", 20.0), 3, 0);
    sim.withWork.add("default");
    sim.runUntil(sim.now + 1_000);
    assertEquals(Set.of("default"), Set.copyOf(sim.grants));
  }

  @Test
  void theLastMinuteShowsEachTenantsActualAndFairShare() {
    Sim sim = new Sim(5, Map.of("acme", 3, "beta", 1), Map.of("acme", 20.0, "beta", 20.0), 4, 0);
    sim.withWork.addAll(Set.of("acme", "beta"));
    for (int i = 0; i < 90; i++) {
      sim.runUntil(sim.now + 1_000);
      sim.publish(true);
    }
    TenantShares.Window window = sim.shares.lastMinute(sim.now, Set.of());
    assertTrue(window.seconds() >= 55 && window.seconds() <= 66, "window " + window.seconds());
    Map<String, TenantShares.Share> byName = new HashMap<>();
    window.shares().forEach(s -> byName.put(s.tenant(), s));
    assertEquals(0.75, byName.get("acme").fair(), 1e-9);
    assertEquals(0.75, byName.get("acme").actual(), 0.02);
    assertEquals(0.25, byName.get("beta").actual(), 0.02);
    assertTrue(byName.get("acme").activations() > 0);
    // 4 runners busy for about a minute.
    double seconds = byName.get("acme").runnerSeconds() + byName.get("beta").runnerSeconds();
    assertEquals(4 * window.seconds(), seconds, 4 * window.seconds() * 0.05);
    assertEquals(0, byName.get("default").activations());
  }

  @Test
  void aTenantWithNotificationsWaitingIsInContentionBeforeItsFirstTurn() {
    Sim sim = new Sim(5, Map.of("acme", 3, "beta", 1), Map.of("acme", 20.0, "beta", 20.0), 4, 0);
    sim.withWork.add("acme");
    for (int i = 0; i < 5; i++) {
      sim.runUntil(sim.now + 1_000);
      sim.publish(true);
    }
    Map<String, TenantShares.Share> alone = new HashMap<>();
    sim.shares.lastMinute(sim.now, Set.of()).shares().forEach(s -> alone.put(s.tenant(), s));
    assertEquals(1.0, alone.get("acme").fair(), 1e-9);
    assertEquals(0.0, alone.get("beta").fair(), 1e-9);

    Map<String, TenantShares.Share> waiting = new HashMap<>();
    sim.shares
        .lastMinute(sim.now, Set.of("beta"))
        .shares()
        .forEach(s -> waiting.put(s.tenant(), s));
    assertEquals(0.75, waiting.get("acme").fair(), 1e-9);
    assertEquals(0.25, waiting.get("beta").fair(), 1e-9);
    assertEquals(0.0, waiting.get("beta").actual(), 1e-9);
    assertEquals(1.0, waiting.get("acme").actual(), 1e-9);
  }
}
