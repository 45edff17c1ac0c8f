package dev.rota.faults.check;

import dev.rota.faults.history.Event;
import dev.rota.faults.history.Event.ClockSkew;
import dev.rota.faults.history.Event.CompleteAttempt;
import dev.rota.faults.history.Event.Granted;
import dev.rota.faults.history.Event.Outcome;
import dev.rota.faults.history.Event.Published;
import dev.rota.faults.history.Event.Renewed;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Checks a history of grants and their ends against per-tenant caps of leases held at once. Pure,
 * like {@link HistoryChecker}: a history that holds more than a cap at once must fail it
 * (CapCheckerTest feeds it one).
 *
 * <p>A lease is counted held only while it certainly was: from its grant (the server's {@code
 * grantedAt}) until the first completion attempt was sent or its last known expiry (the grant's, or
 * the last successful heartbeat's), whichever is first — or until a publish that interrupted it was
 * sent (a publish answered {@code interrupted}, sent after the lease was the agent's latest grant):
 * an interrupt ends the lease and gives its tenant's permit back at once, before the runner hears
 * of it, and never before the publish was sent. The server holds it at least that long (an agent
 * never ends a lease before its expiry unless told to or interrupted), so more than the cap at once
 * here is more than the cap held by the cluster; the converse need not hold (the check may miss an
 * excess, it never invents one).
 *
 * <p>An agent's tenant is the part of its id before a {@code /} (an agent key), {@code default}
 * without one.
 */
public final class CapChecker {
  /** The tenant of agents whose key names none. */
  public static final String DEFAULT_TENANT = "default";

  private CapChecker() {}

  /**
   * An excess: at {@code atMs} (machine clock) {@code tenant} held {@code leaseIds}, more than
   * {@code cap}.
   */
  public record Excess(String tenant, int cap, long atMs, List<String> leaseIds) {
    @Override
    public String toString() {
      return "tenant "
          + tenant
          + " held "
          + leaseIds.size()
          + " leases at once (cap "
          + cap
          + ") at "
          + atMs
          + ": "
          + leaseIds;
    }
  }

  /**
   * The outcome: the most leases each capped tenant held at once, and every moment a cap was
   * exceeded (the first of each run of excess).
   */
  public record Result(Map<String, Integer> maxHeld, List<Excess> excesses) {
    public boolean held() {
      return excesses.isEmpty();
    }
  }

  /** Checks {@code history} against {@code caps}: tenant name to its most leases at once. */
  public static Result check(List<Event> history, Map<String, Integer> caps) {
    List<Event> events = new ArrayList<>(history);
    events.sort(Comparator.comparingLong(Event::at));
    List<Long> offsets = new ArrayList<>(List.of(0L));
    for (Event event : events) {
      if (event instanceof ClockSkew skew) {
        offsets.add(skew.offsetMs());
      }
    }
    if (offsets.size() > 1) {
      events = MachineClock.map(events, offsets);
    }

    Map<String, Granted> grants = new HashMap<>();
    Map<String, Long> firstCompletion = new HashMap<>();
    Map<String, Long> renewedUntil = new HashMap<>();
    Map<String, Long> interruptedBy = new HashMap<>();
    List<Published> interrupts = new ArrayList<>();
    for (Event event : events) {
      if (event instanceof Granted g) {
        grants.put(g.leaseId(), g);
      } else if (event instanceof Published p
          && p.outcome() == Outcome.OK
          && p.detail() != null
          && p.detail().contains(Published.INTERRUPTED)) {
        interrupts.add(p);
      } else if (event instanceof CompleteAttempt c) {
        firstCompletion.merge(c.leaseId(), c.startMs(), Math::min);
      } else if (event instanceof Renewed r && r.outcome() == Outcome.OK) {
        renewedUntil.merge(r.leaseId(), r.expiresAt(), Math::max);
      }
    }

    // An interrupt ends the agent's lease granted last before the publish was sent (the grant
    // that follows the interrupt comes after it).
    for (Published p : interrupts) {
      Granted running = null;
      for (Granted g : grants.values()) {
        if (g.agentId().equals(p.agentId())
            && g.grantedAt() <= p.startMs()
            && (running == null || g.grantedAt() > running.grantedAt())) {
          running = g;
        }
      }
      if (running != null) {
        interruptedBy.merge(running.leaseId(), p.startMs(), Math::min);
      }
    }

    // Each certain hold as a start and an end; at one instant, ends before starts.
    record Edge(long atMs, boolean start, String tenant, String leaseId) {}
    List<Edge> edges = new ArrayList<>();
    for (Granted g : grants.values()) {
      String tenant = tenantOf(g.agentId());
      if (!caps.containsKey(tenant)) {
        continue;
      }
      long end = Math.max(g.expiresAt(), renewedUntil.getOrDefault(g.leaseId(), 0L));
      Long completion = firstCompletion.get(g.leaseId());
      if (completion != null) {
        end = Math.min(end, completion);
      }
      end = Math.min(end, interruptedBy.getOrDefault(g.leaseId(), Long.MAX_VALUE));
      if (end <= g.grantedAt()) {
        continue;
      }
      edges.add(new Edge(g.grantedAt(), true, tenant, g.leaseId()));
      edges.add(new Edge(end, false, tenant, g.leaseId()));
    }
    edges.sort(
        Comparator.comparingLong(Edge::atMs)
            .thenComparing(Edge::start)
            .thenComparing(Edge::leaseId));

    Map<String, TreeSet<String>> holding = new HashMap<>();
    Map<String, Integer> maxHeld = new TreeMap<>();
    Map<String, Boolean> over = new HashMap<>();
    List<Excess> excesses = new ArrayList<>();
    for (String tenant : caps.keySet()) {
      maxHeld.put(tenant, 0);
    }
    for (Edge edge : edges) {
      TreeSet<String> held = holding.computeIfAbsent(edge.tenant(), t -> new TreeSet<>());
      if (!edge.start()) {
        held.remove(edge.leaseId());
        if (held.size() <= caps.get(edge.tenant())) {
          over.put(edge.tenant(), false);
        }
        continue;
      }
      held.add(edge.leaseId());
      maxHeld.merge(edge.tenant(), held.size(), Math::max);
      int cap = caps.get(edge.tenant());
      if (held.size() > cap && !over.getOrDefault(edge.tenant(), false)) {
        over.put(edge.tenant(), true);
        excesses.add(new Excess(edge.tenant(), cap, edge.atMs(), List.copyOf(held)));
      }
    }
    return new Result(maxHeld, excesses);
  }

  /** The tenant of an agent key: the part before its {@code /}, or {@link #DEFAULT_TENANT}. */
  public static String tenantOf(String agentKey) {
    int slash = agentKey.indexOf('/');
    return slash < 0 ? DEFAULT_TENANT : agentKey.substring(0, slash);
  }
}
