package dev.rota.core.tenant;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * The rule across tenants, as a dispatcher applies it: among the tenants with work a request may
 * take, the one furthest below its weighted share of runner time goes first (start-time fair
 * queueing over runner time, decision 103).
 *
 * <p>Each tenant has a virtual time: the runner time its agents have used, divided by its weight,
 * plus a lift (below). The tenant with the least virtual time is served. Runner time is what the
 * partitions' coordinators publish ({@link TenantLoad}): leases ended, from grant to end, and
 * leases in flight, each charged at least the tenant's mean turn from its grant (so a lease counts
 * the moment it is granted, not only when it ends, and a long one counts for as long as it runs).
 * Grants this dispatcher made since its partition last published are charged one mean turn each.
 *
 * <p>A tenant that comes back with work (it has no lease in flight) starts no earlier than the
 * virtual time at which the last lease was granted (the start of the turn being served), or the
 * least virtual time of the active tenants competing with it if that is lower: it gets its share
 * from now on, not the turns it "missed" while it had nothing to do (or had only work of a kind
 * that ranked after the others'), so its return costs the others at most one round.
 *
 * <p>Everything here is per dispatcher, on the cluster-wide counts every dispatcher receives, so
 * every node's dispatcher ranks tenants the same way up to the lag of a publication. Not
 * thread-safe; one actor owns it.
 */
public final class TenantShares {

  /**
   * One tenant's share of the runner time over the last {@code windowSeconds}: the one definition
   * of a tenant's share, which the admin's tenant view, the tenant metrics and the bench all show.
   *
   * @param activations leases granted to its agents in the window, across the cluster
   * @param runnerSeconds runner time its agents' leases took in the window (ended leases, and the
   *     leases in flight so far)
   * @param actual its part of all tenants' runner time in the window, 0–1
   * @param fair its weight over the weights of the tenants in contention — those that used runners
   *     in the window, hold leases now or have notifications waiting — 0 when it is in none of
   *     these: the share the rule across tenants gives it while they all have work
   * @param leased its leases in flight now, across the cluster
   */
  public record Share(
      String tenant,
      int weight,
      long activations,
      double runnerSeconds,
      double actual,
      double fair,
      int leased) {}

  /** The turn length charged for a lease before any of the tenant's leases has ended. */
  static final double DEFAULT_TURN_MILLIS = 100;

  private static final long SAMPLE_EVERY_MILLIS = 5_000;
  private static final long WINDOW_MILLIS = 60_000;

  private static final class Tenant {
    /** Leases in flight across the cluster, as published. */
    long leased;

    /** In-flight runner time is {@code inFlightBase + leased * now}. */
    long inFlightBase;

    /** Runner time of ended leases across the cluster. */
    long endedMillis;

    /** Leases granted across the cluster. */
    long grants;

    /** Grants of this dispatcher no publication showed yet. */
    int local;

    double meanTurnMillis = DEFAULT_TURN_MILLIS;
    boolean turnMeasured;
    double lift;

    double usedMillis(long nowMillis) {
      double inFlight = Math.max(leased * meanTurnMillis, inFlightBase + leased * nowMillis);
      return endedMillis + inFlight + local * meanTurnMillis;
    }

    /** Runner time as measured, without the estimates that charge a lease from its grant. */
    long elapsedMillis(long nowMillis) {
      return endedMillis + Math.max(0, inFlightBase + leased * nowMillis);
    }
  }

  /** What a partition last published of one tenant. */
  private static final class Seen {
    long epoch;
    long atMillis;
    TenantLoad load;
    int local;
  }

  private record Sample(long atMillis, Map<String, long[]> totals) {}

  private TenantTable table;
  private final Map<String, Tenant> tenants = new HashMap<>();
  private final Map<Integer, Map<String, Seen>> partitions = new HashMap<>();

  /** The virtual time of the last tenant served: where a returning tenant starts. */
  private double floor;

  private final ArrayDeque<Sample> samples = new ArrayDeque<>();

  public TenantShares(TenantTable table) {
    this.table = Objects.requireNonNull(table, "table");
  }

  /** The tenants' weights changed. */
  public void table(TenantTable table) {
    this.table = Objects.requireNonNull(table, "table");
  }

  /**
   * A partition's publication: {@code loads} per tenant as of {@code atMillis} by the coordinator
   * that started at {@code epoch} (a new epoch's counts start again from zero).
   */
  public void accept(
      int partition, long epoch, long atMillis, Map<String, TenantLoad> loads, long nowMillis) {
    Map<String, Seen> seen = partitions.computeIfAbsent(partition, p -> new HashMap<>());
    if (loads.isEmpty() && seen.isEmpty()) {
      return;
    }
    for (Map.Entry<String, Seen> e : seen.entrySet()) {
      Seen s = e.getValue();
      Tenant t = tenant(e.getKey());
      // This dispatcher's grants in the partition are in this publication, or in the one the
      // lease's start sends next: charged by the coordinator's count from now on. (An agent may
      // answer its grant after its coordinator published it; retiring them by count would keep
      // such a grant charged twice.)
      t.local -= s.local;
      s.local = 0;
      if (!loads.containsKey(e.getKey()) && s.load != null) {
        withdraw(t, s);
        s.load = null;
      }
    }
    for (Map.Entry<String, TenantLoad> e : loads.entrySet()) {
      TenantLoad load = e.getValue();
      Tenant t = tenant(e.getKey());
      Seen s = seen.computeIfAbsent(e.getKey(), k -> new Seen());
      TenantLoad before = s.load != null && s.epoch == epoch ? s.load : null;
      if (s.load != null) {
        withdraw(t, s);
      }
      long endedMillis = load.endedMillis() - (before == null ? 0 : before.endedMillis());
      long ended = load.ended() - (before == null ? 0 : before.ended());
      long grants = load.grants() - (before == null ? 0 : before.grants());
      if (endedMillis > 0) {
        t.endedMillis += endedMillis;
      }
      if (ended > 0) {
        double sample = Math.max(1.0, (double) Math.max(0, endedMillis) / ended);
        t.meanTurnMillis = t.turnMeasured ? 0.7 * t.meanTurnMillis + 0.3 * sample : sample;
        t.turnMeasured = true;
      }
      if (grants > 0) {
        t.grants += grants;
      }
      s.epoch = epoch;
      s.atMillis = atMillis;
      s.load = load;
      t.leased += load.leased();
      t.inFlightBase += load.inFlightMillis() - (long) load.leased() * atMillis;
    }
    sample(nowMillis);
  }

  private static void withdraw(Tenant t, Seen s) {
    t.leased -= s.load.leased();
    t.inFlightBase -= s.load.inFlightMillis() - (long) s.load.leased() * s.atMillis;
  }

  /** This dispatcher granted a lease to an agent of {@code tenant} in {@code partition}. */
  public void granted(int partition, String tenant, long nowMillis) {
    Tenant t = tenant(tenant);
    // The start of the lease just granted, in virtual time: where a tenant that returns starts.
    raiseFloor(tenant, t, nowMillis);
    Seen s =
        partitions
            .computeIfAbsent(partition, p -> new HashMap<>())
            .computeIfAbsent(tenant, k -> new Seen());
    s.local++;
    t.local++;
  }

  /**
   * The tenant to serve among {@code candidates} (distinct, at least one), which have work of the
   * same kind: the least virtual time, a returning tenant lifted first; ties go to the tenant with
   * fewer leases in flight, then to the name first in order.
   */
  public String choose(List<String> candidates, long nowMillis) {
    // A returning tenant is lifted to the floor, but never past a tenant that is active (has a
    // lease in flight) and has work now: the floor follows measured runner time, which a
    // publication's lag can overstate for a moment, and a lift past the others would make the
    // returning tenant wait for them.
    double activeMin = Double.POSITIVE_INFINITY;
    for (String name : candidates) {
      Tenant t = tenant(name);
      if (t.leased + t.local > 0) {
        activeMin = Math.min(activeMin, virtualTime(name, t, nowMillis));
      }
    }
    double target = Math.min(floor, activeMin);
    String best = null;
    double bestTime = 0;
    long bestLeased = 0;
    for (String name : candidates) {
      Tenant t = tenant(name);
      double v = virtualTime(name, t, nowMillis);
      long leased = t.leased + t.local;
      if (leased <= 0 && v < target) {
        // Back with work after none (nothing in flight): it starts level with the others.
        t.lift += target - v;
        v = target;
      }
      if (best == null
          || v < bestTime
          || (v == bestTime
              && (leased < bestLeased || (leased == bestLeased && name.compareTo(best) < 0)))) {
        best = name;
        bestTime = v;
        bestLeased = leased;
      }
    }
    raiseFloor(best, tenant(best), nowMillis);
    return best;
  }

  /**
   * The floor follows the served tenant's virtual time as measured, without the estimates of its
   * leases in flight: an estimate that proves too long would otherwise leave the floor above where
   * the tenants really are, and lift a returning tenant past them.
   */
  private void raiseFloor(String name, Tenant t, long nowMillis) {
    floor = Math.max(floor, t.elapsedMillis(nowMillis) / table.specOf(name).weight() + t.lift);
  }

  /** The tenant's virtual time at {@code nowMillis}: runner time used per weight, plus its lift. */
  public double virtualTime(String tenant, long nowMillis) {
    return virtualTime(tenant, tenant(tenant), nowMillis);
  }

  private double virtualTime(String name, Tenant t, long nowMillis) {
    return t.usedMillis(nowMillis) / table.specOf(name).weight() + t.lift;
  }

  /** Leases of {@code tenant} in flight across the cluster, as far as this dispatcher knows. */
  public long leased(String tenant) {
    Tenant t = tenants.get(tenant);
    return t == null ? 0 : t.leased + t.local;
  }

  /** Leases granted to {@code tenant}'s agents across the cluster, as published so far. */
  public long grants(String tenant) {
    Tenant t = tenants.get(tenant);
    return t == null ? 0 : t.grants;
  }

  /**
   * Every tenant's share of runner time over about the last minute (since the sample nearest a
   * minute ago; the window is shorter while the dispatcher is younger): the tenants of the table,
   * and any other tenant whose agents used runners. {@code waiting}: the tenants with notifications
   * waiting now, which are in contention for runners even while they get none.
   */
  public Window lastMinute(long nowMillis, Set<String> waiting) {
    sample(nowMillis);
    Sample base = null;
    for (Sample s : samples) {
      if (s.atMillis() >= nowMillis - WINDOW_MILLIS - SAMPLE_EVERY_MILLIS) {
        base = s;
        break;
      }
    }
    Map<String, long[]> from = base == null ? Map.of() : base.totals();
    List<String> names = new ArrayList<>(table.tenants().keySet());
    tenants.keySet().stream().filter(n -> !names.contains(n)).sorted().forEach(names::add);
    long[] activations = new long[names.size()];
    long[] used = new long[names.size()];
    long usedTotal = 0;
    long activeWeights = 0;
    for (int i = 0; i < names.size(); i++) {
      Tenant t = tenants.get(names.get(i));
      long[] start = from.getOrDefault(names.get(i), new long[2]);
      activations[i] = t == null ? 0 : Math.max(0, t.grants - start[0]);
      used[i] = t == null ? 0 : Math.max(0, t.elapsedMillis(nowMillis) - start[1]);
      usedTotal += used[i];
      if (contending(used[i], t, waiting.contains(names.get(i)))) {
        activeWeights += table.specOf(names.get(i)).weight();
      }
    }
    List<Share> shares = new ArrayList<>(names.size());
    for (int i = 0; i < names.size(); i++) {
      String name = names.get(i);
      Tenant t = tenants.get(name);
      int weight = table.specOf(name).weight();
      boolean active = contending(used[i], t, waiting.contains(name));
      shares.add(
          new Share(
              name,
              weight,
              activations[i],
              used[i] / 1000.0,
              usedTotal == 0 ? 0 : (double) used[i] / usedTotal,
              active && activeWeights > 0 ? (double) weight / activeWeights : 0,
              t == null ? 0 : (int) Math.max(0, t.leased)));
    }
    long window = base == null ? 0 : nowMillis - base.atMillis();
    return new Window(window / 1000.0, shares);
  }

  private static boolean contending(long usedMillis, Tenant t, boolean waiting) {
    return usedMillis > 0 || (t != null && t.leased > 0) || waiting;
  }

  /** Shares over a window of {@code seconds}. */
  public record Window(double seconds, List<Share> shares) {}

  private void sample(long nowMillis) {
    if (!samples.isEmpty() && nowMillis - samples.peekLast().atMillis() < SAMPLE_EVERY_MILLIS) {
      return;
    }
    Map<String, long[]> totals = new HashMap<>();
    tenants.forEach(
        (name, t) -> totals.put(name, new long[] {t.grants, t.elapsedMillis(nowMillis)}));
    samples.addLast(new Sample(nowMillis, totals));
    while (samples.size() > 2
        && samples.stream().skip(1).findFirst().get().atMillis()
            < nowMillis - WINDOW_MILLIS - SAMPLE_EVERY_MILLIS) {
      samples.pollFirst();
    }
  }

  private Tenant tenant(String name) {
    return tenants.computeIfAbsent(name, n -> new Tenant());
  }
}
