package dev.rota.faults.check;

import dev.rota.faults.check.Verdict.FaultWindow;
import dev.rota.faults.history.Event;
import dev.rota.faults.history.Event.ClockSkew;
import dev.rota.faults.history.Event.CompleteAttempt;
import dev.rota.faults.history.Event.DeadLetter;
import dev.rota.faults.history.Event.Fault;
import dev.rota.faults.history.Event.FinalInbox;
import dev.rota.faults.history.Event.Granted;
import dev.rota.faults.history.Event.Outcome;
import dev.rota.faults.history.Event.Placement;
import dev.rota.faults.history.Event.Published;
import dev.rota.faults.history.Event.Renewed;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Checks a fault run's history offline. Pure: it reads only the events, so a corrupted history fed
 * to it must fail the matching check (HistoryCheckerTest does exactly that).
 *
 * <p>The checks, in the words of DESIGN.md:
 *
 * <ul>
 *   <li><b>Nothing acknowledged is lost</b>: every acknowledged key is carried by an accepted
 *       completion, or by a lease whose completion was sent but never answered (it may have been
 *       accepted; the key is then never granted again), or is dead-lettered, or its agent still had
 *       unread notifications at the end (reported as undrained instead).
 *   <li><b>Stale completions are refused</b>: a completion of lease L accepted although another
 *       lease on L's agent had been granted (by the server's clock) before the completion was sent
 *       (by the client's; one machine, one clock).
 *   <li><b>No overlapping holds before expiry</b>: a lease is held from its grant until the first
 *       completion attempt is sent or its last known expiry (the grant's, or the last successful
 *       heartbeat's), whichever is first; no other lease on the agent is granted inside that hold.
 *   <li><b>No duplicates</b>: no key is carried by two accepted completions, and no dedupe key is
 *       acknowledged under two notification ids.
 *   <li><b>Unavailability window</b> per injected fault: for each agent the fault took away (its
 *       first publish after the fault failed), the time from the fault to the first acknowledged
 *       publish after that failure (publishes started before the next fault count). An agent served
 *       after the fault that fails later is counted apart, as a later failure.
 *   <li><b>Waits by host</b> per injected fault: the faulty node's agents are the ones its shard
 *       region hosted just before the fault ({@link Placement}; without one, the agents the fault
 *       took away, and every agent for a database fault). For them, the time from the fault until
 *       each was first served again; for every other agent, the longest any of its notifications
 *       waited for its acknowledgement after the fault (from its first attempt, or the fault if
 *       that came later) — a stalled node must not hold those back.
 * </ul>
 *
 * <p>With {@link ClockSkew} events in the history, each server time is first mapped back to the
 * machine's clock: a grant's {@code grantedAt} minus the one node offset that puts it inside the
 * claim's round trip (the nodes' offsets are tens of seconds apart, the round trip far less).
 */
public final class HistoryChecker {
  /** Faults whose node is gone (for its clients' agents) at the moment they are injected. */
  private static boolean takesNodeAtOnce(String kind) {
    return kind.equals("kill-9")
        || kind.startsWith("sigstop")
        || kind.startsWith("partition")
        || kind.equals("clock-skew");
  }

  private HistoryChecker() {}

  public static Verdict check(List<Event> history) {
    List<Event> events = new ArrayList<>(history);
    events.sort(Comparator.comparingLong(Event::at));

    List<Published> published = new ArrayList<>();
    Map<String, Granted> grants = new HashMap<>();
    Map<String, List<Granted>> grantsByAgent = new TreeMap<>();
    Map<String, List<CompleteAttempt>> attemptsByLease = new HashMap<>();
    Map<String, Long> renewedUntil = new HashMap<>();
    Set<String> deadLettered = new HashSet<>();
    Map<String, FinalInbox> finals = new TreeMap<>();
    List<Fault> faults = new ArrayList<>();
    List<Placement> placements = new ArrayList<>();
    List<Long> offsets = new ArrayList<>(List.of(0L));
    for (Event event : events) {
      if (event instanceof ClockSkew skew) {
        offsets.add(skew.offsetMs());
      }
    }
    if (offsets.size() > 1) {
      events = onMachineClock(events, offsets);
    }

    for (Event event : events) {
      if (event instanceof Published p) {
        published.add(p);
      } else if (event instanceof Granted g) {
        grants.put(g.leaseId(), g);
        grantsByAgent.computeIfAbsent(g.agentId(), a -> new ArrayList<>()).add(g);
      } else if (event instanceof CompleteAttempt c) {
        attemptsByLease.computeIfAbsent(c.leaseId(), l -> new ArrayList<>()).add(c);
      } else if (event instanceof Renewed r) {
        if (r.outcome() == Outcome.OK) {
          renewedUntil.merge(r.leaseId(), r.expiresAt(), Math::max);
        }
      } else if (event instanceof DeadLetter d) {
        deadLettered.add(d.key());
      } else if (event instanceof FinalInbox f) {
        finals.put(f.agentId(), f);
      } else if (event instanceof Fault f && Fault.INJECTED.equals(f.phase())) {
        faults.add(f);
      } else if (event instanceof Placement placement) {
        placements.add(placement);
      }
    }
    for (List<Granted> list : grantsByAgent.values()) {
      list.sort(Comparator.comparingLong(Granted::grantedAt));
    }

    // Completions: accepted, unanswered, and which grant last carried each key.
    Map<String, List<String>> completedBy = new TreeMap<>();
    Set<String> possiblyCompleted = new HashSet<>();
    Map<String, Granted> lastGrantOfKey = new HashMap<>();
    for (List<Granted> list : grantsByAgent.values()) {
      for (Granted g : list) {
        for (String key : g.keys()) {
          lastGrantOfKey.put(key, g);
        }
      }
    }
    for (Granted g : grants.values()) {
      List<CompleteAttempt> attempts = attemptsByLease.getOrDefault(g.leaseId(), List.of());
      boolean accepted = attempts.stream().anyMatch(c -> c.outcome() == Outcome.OK);
      boolean unanswered = attempts.stream().anyMatch(c -> c.outcome() == Outcome.FAILED);
      for (String key : g.keys()) {
        if (accepted) {
          completedBy.computeIfAbsent(key, k -> new ArrayList<>()).add(g.leaseId());
        } else if (unanswered && lastGrantOfKey.get(key) == g) {
          possiblyCompleted.add(key);
        }
      }
    }

    // Lost and duplicate accepts.
    Map<String, Set<String>> idsOfKey = new TreeMap<>();
    Map<String, String> agentOfKey = new HashMap<>();
    for (Published p : published) {
      if (p.outcome() == Outcome.OK) {
        idsOfKey.computeIfAbsent(p.key(), k -> new TreeSet<>()).add(p.notificationId());
        agentOfKey.put(p.key(), p.agentId());
      }
    }
    List<String> undrained = new ArrayList<>();
    Set<String> undrainedAgents = new HashSet<>();
    for (FinalInbox f : finals.values()) {
      if (f.unread() > 0 || f.leased()) {
        undrained.add(f.agentId() + " unread " + f.unread() + (f.leased() ? ", leased" : ""));
        undrainedAgents.add(f.agentId());
      }
    }
    List<String> lost = new ArrayList<>();
    List<String> duplicateAccepts = new ArrayList<>();
    for (Map.Entry<String, Set<String>> entry : idsOfKey.entrySet()) {
      String key = entry.getKey();
      if (entry.getValue().size() > 1) {
        duplicateAccepts.add(key + " acknowledged as " + entry.getValue());
      }
      boolean accounted =
          completedBy.containsKey(key)
              || possiblyCompleted.contains(key)
              || deadLettered.contains(key)
              || undrainedAgents.contains(agentOfKey.get(key));
      if (!accounted) {
        Granted last = lastGrantOfKey.get(key);
        lost.add(
            key
                + " (agent "
                + agentOfKey.get(key)
                + (last == null ? ", never granted" : ", last granted in lease " + last.leaseId())
                + ")");
      }
    }
    List<String> duplicateCompletions = new ArrayList<>();
    completedBy.forEach(
        (key, leases) -> {
          if (leases.size() > 1) {
            duplicateCompletions.add(key + " completed by leases " + leases);
          }
        });

    // Stale completions accepted and overlapping holds.
    List<String> staleAccepted = new ArrayList<>();
    List<String> overlaps = new ArrayList<>();
    for (List<Granted> list : grantsByAgent.values()) {
      Granted holder = null;
      long heldUntil = Long.MIN_VALUE;
      for (Granted g : list) {
        if (holder != null && g.grantedAt() < heldUntil) {
          overlaps.add(
              g.agentId()
                  + ": lease "
                  + g.leaseId()
                  + " granted at "
                  + g.grantedAt()
                  + " while "
                  + holder.leaseId()
                  + " was held until "
                  + heldUntil);
        }
        long end = holdEnd(g, attemptsByLease, renewedUntil);
        if (end > heldUntil) {
          heldUntil = end;
          holder = g;
        }
        for (CompleteAttempt c : attemptsByLease.getOrDefault(g.leaseId(), List.of())) {
          if (c.outcome() != Outcome.OK) {
            continue;
          }
          for (Granted later : list) {
            if (later.grantedAt() > g.grantedAt() && later.grantedAt() < c.startMs()) {
              staleAccepted.add(
                  g.agentId()
                      + ": lease "
                      + g.leaseId()
                      + " completed (sent at "
                      + c.startMs()
                      + ") after lease "
                      + later.leaseId()
                      + " was granted at "
                      + later.grantedAt());
              break;
            }
          }
        }
      }
    }

    List<FaultWindow> windows = new ArrayList<>();
    faults.sort(Comparator.comparingLong(Fault::atMs));
    for (int i = 0; i < faults.size(); i++) {
      long until = i + 1 < faults.size() ? faults.get(i + 1).atMs() : Long.MAX_VALUE;
      windows.add(window(faults.get(i), until, published, placements));
    }

    return new Verdict(
        idsOfKey.size(),
        completedBy.size(),
        lost,
        undrained,
        staleAccepted,
        overlaps,
        duplicateCompletions,
        duplicateAccepts,
        windows);
  }

  /** The end of a lease's hold: its first completion attempt or its last known expiry. */
  private static long holdEnd(
      Granted g, Map<String, List<CompleteAttempt>> attemptsByLease, Map<String, Long> renewed) {
    long expiry = Math.max(g.expiresAt(), renewed.getOrDefault(g.leaseId(), Long.MIN_VALUE));
    long firstAttempt =
        attemptsByLease.getOrDefault(g.leaseId(), List.of()).stream()
            .mapToLong(CompleteAttempt::startMs)
            .min()
            .orElse(Long.MAX_VALUE);
    return Math.min(expiry, firstAttempt);
  }

  private static FaultWindow window(
      Fault fault, long until, List<Published> published, List<Placement> placements) {
    Map<String, List<Published>> byAgent = new TreeMap<>();
    for (Published p : published) {
      if (p.startMs() >= fault.atMs() && p.startMs() < until) {
        byAgent.computeIfAbsent(p.agentId(), a -> new ArrayList<>()).add(p);
      }
    }
    int affected = 0;
    int laterFailures = 0;
    int never = 0;
    long max = 0;
    long maxOutage = 0;
    String worst = null;
    Set<String> affectedAgents = new HashSet<>();
    for (Map.Entry<String, List<Published>> entry : byAgent.entrySet()) {
      List<Published> attempts = entry.getValue();
      attempts.sort(Comparator.comparingLong(Published::startMs));
      Published firstFailure =
          attempts.stream().filter(p -> p.outcome() != Outcome.OK).findFirst().orElse(null);
      if (firstFailure == null) {
        continue;
      }
      if (takesNodeAtOnce(fault.kind()) && attempts.get(0).outcome() == Outcome.OK) {
        // Served after a kill or freeze before it first failed: not an agent the fault took away
        // (a request that timed out on a loaded machine, say); counted, not held to the bound.
        // Restarts move shards long after their marker, so there every failure counts.
        laterFailures++;
        continue;
      }
      affected++;
      affectedAgents.add(entry.getKey());
      Published served =
          attempts.stream()
              .filter(p -> p.outcome() == Outcome.OK && p.startMs() > firstFailure.startMs())
              .findFirst()
              .orElse(null);
      long window = served == null ? Long.MAX_VALUE : served.endMs() - fault.atMs();
      long outage = served == null ? Long.MAX_VALUE : served.endMs() - firstFailure.startMs();
      maxOutage = Math.max(maxOutage, outage);
      if (served == null) {
        never++;
      }
      if (worst == null || window > max) {
        max = window;
        worst = entry.getKey();
      }
    }
    Set<String> hosted = hostedAgents(fault, placements, published, affectedAgents);
    long hostedWindow = 0;
    String worstHosted = null;
    for (String agent : hosted) {
      long served =
          byAgent.getOrDefault(agent, List.of()).stream()
              .filter(p -> p.outcome() == Outcome.OK)
              .mapToLong(p -> p.endMs() - fault.atMs())
              .min()
              .orElse(byAgent.containsKey(agent) ? Long.MAX_VALUE : 0);
      if (worstHosted == null || served > hostedWindow) {
        hostedWindow = served;
        worstHosted = agent;
      }
    }
    long othersWait = 0;
    String worstOther = null;
    Map<String, Long> firstAttempt = new HashMap<>();
    for (Published p : published) {
      firstAttempt.merge(p.key(), p.startMs(), Math::min);
    }
    for (Published p : published) {
      if (p.outcome() != Outcome.OK || hosted.contains(p.agentId()) || p.endMs() < fault.atMs()) {
        continue;
      }
      long first = firstAttempt.get(p.key());
      if (first >= until) {
        continue;
      }
      long wait = p.endMs() - Math.max(first, fault.atMs());
      if (worstOther == null || wait > othersWait) {
        othersWait = wait;
        worstOther = p.agentId();
      }
    }
    return new FaultWindow(
        fault.kind(),
        fault.node(),
        fault.atMs(),
        affected,
        max,
        worst,
        never,
        maxOutage,
        laterFailures,
        hosted.size(),
        hostedWindow,
        worstHosted,
        othersWait,
        worstOther);
  }

  /**
   * The faulty node's agents: those its region hosted at the last placement before the fault (at
   * most a minute before), every agent for a fault of the database (node 0), else the agents the
   * fault took away.
   */
  private static Set<String> hostedAgents(
      Fault fault, List<Placement> placements, List<Published> published, Set<String> affected) {
    if (fault.node() == 0) {
      Set<String> all = new TreeSet<>();
      published.forEach(p -> all.add(p.agentId()));
      return all;
    }
    Placement last = null;
    for (Placement placement : placements) {
      if (placement.node() == fault.node()
          && placement.atMs() <= fault.atMs()
          && placement.atMs() > fault.atMs() - 60_000
          && (last == null || placement.atMs() > last.atMs())) {
        last = placement;
      }
    }
    return last == null ? affected : new TreeSet<>(last.agents());
  }

  /**
   * The history with every grant's and successful heartbeat's server times on the machine's clock:
   * each shifted by the node offset that puts the grant inside its claim's round trip (for a
   * heartbeat: the renewed lease's start, its expiry less the lease's length, inside the
   * heartbeat's round trip). A time no offset explains is left as it is.
   */
  private static List<Event> onMachineClock(List<Event> events, List<Long> offsets) {
    Map<String, Long> lengths = new HashMap<>();
    List<Event> mapped = new ArrayList<>(events.size());
    for (Event event : events) {
      if (event instanceof Granted g) {
        lengths.put(g.leaseId(), g.expiresAt() - g.grantedAt());
        long offset = offset(g.grantedAt(), g.startMs(), g.endMs(), offsets);
        mapped.add(
            new Granted(
                g.runnerId(),
                g.node(),
                g.leaseId(),
                g.agentId(),
                g.grantedAt() - offset,
                g.expiresAt() - offset,
                g.keys(),
                g.startMs(),
                g.endMs()));
      } else {
        mapped.add(event);
      }
    }
    for (int i = 0; i < mapped.size(); i++) {
      if (mapped.get(i) instanceof Renewed r
          && r.outcome() == Outcome.OK
          && lengths.containsKey(r.leaseId())) {
        long renewedAt = r.expiresAt() - lengths.get(r.leaseId());
        long offset = offset(renewedAt, r.startMs(), r.endMs(), offsets);
        mapped.set(
            i,
            new Renewed(r.leaseId(), r.startMs(), r.endMs(), r.outcome(), r.expiresAt() - offset));
      }
    }
    return mapped;
  }

  /** The offset that puts a server time inside the client's [start, end] (100 ms either side). */
  private static long offset(long serverTime, long start, long end, List<Long> offsets) {
    for (long offset : offsets) {
      long onMachine = serverTime - offset;
      if (onMachine >= start - 100 && onMachine <= end + 100) {
        return offset;
      }
    }
    return 0;
  }
}
