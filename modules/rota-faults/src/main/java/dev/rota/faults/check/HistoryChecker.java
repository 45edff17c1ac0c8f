package dev.rota.faults.check;

import dev.rota.faults.check.Verdict.FaultWindow;
import dev.rota.faults.history.Event;
import dev.rota.faults.history.Event.ClockSkew;
import dev.rota.faults.history.Event.CompleteAttempt;
import dev.rota.faults.history.Event.DeadLetter;
import dev.rota.faults.history.Event.Fault;
import dev.rota.faults.history.Event.FinalInbox;
import dev.rota.faults.history.Event.Granted;
import dev.rota.faults.history.Event.Interrupted;
import dev.rota.faults.history.Event.Outcome;
import dev.rota.faults.history.Event.Placement;
import dev.rota.faults.history.Event.Published;
import dev.rota.faults.history.Event.Renewed;
import dev.rota.faults.history.Event.Steered;
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
 * <p>The checks:
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
 *   <li><b>No lease ended early</b>: no completion or heartbeat answered 410 (lost) before the
 *       lease's last known expiry, unless an earlier completion of it went unanswered.
 *   <li><b>No duplicates</b>: no key is carried by two accepted completions, and no dedupe key is
 *       acknowledged under two notification ids.
 *   <li><b>New input during a turn</b>: a key steered into a lease and given to its runner ({@link
 *       Steered}) is carried by the lease as if granted with it (the runner's completion names it);
 *       any other steered key returns to the inbox, so every key must be completed exactly once or
 *       still unread; a lease new input interrupted ({@link Interrupted}, or a producer's answer)
 *       is held only until then, no completion of it may be accepted, and its 410s are not early.
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
  /** Milliseconds of rounding between a server's times and the suite's. */
  private static final long CLOCK_SLACK_MS = 100;

  private HistoryChecker() {}

  public static Verdict check(List<Event> history) {
    List<Event> events = new ArrayList<>(history);
    events.sort(Comparator.comparingLong(Event::at));

    List<Published> published = new ArrayList<>();
    Map<String, Granted> grants = new HashMap<>();
    Map<String, List<Granted>> grantsByAgent = new TreeMap<>();
    Map<String, List<CompleteAttempt>> attemptsByLease = new HashMap<>();
    Map<String, Long> renewedUntil = new HashMap<>();
    List<Renewed> renewals = new ArrayList<>();
    Set<String> deadLettered = new HashSet<>();
    Map<String, FinalInbox> finals = new TreeMap<>();
    List<Fault> faults = new ArrayList<>();
    List<Placement> placements = new ArrayList<>();
    Map<String, List<String>> steeredKeys = new HashMap<>();
    Map<String, Long> interruptedAt = new HashMap<>();
    List<Long> offsets = new ArrayList<>(List.of(0L));
    for (Event event : events) {
      if (event instanceof ClockSkew skew) {
        offsets.add(skew.offsetMs());
      }
    }
    if (offsets.size() > 1) {
      events = MachineClock.map(events, offsets);
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
        renewals.add(r);
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
      } else if (event instanceof Steered s) {
        steeredKeys.computeIfAbsent(s.leaseId(), l -> new ArrayList<>()).addAll(s.keys());
      } else if (event instanceof Interrupted i) {
        interruptedAt.merge(i.leaseId(), i.atMs(), Math::min);
      }
    }
    NewInputAnswers.attribute(published, grantsByAgent, attemptsByLease, interruptedAt);
    // A steered key its runner was given is the lease's from then on, as if the grant had carried
    // it; one the runner was not given returns to the inbox when the lease ends.
    for (Map.Entry<String, List<String>> e : steeredKeys.entrySet()) {
      Granted g = grants.get(e.getKey());
      if (g == null) {
        continue;
      }
      List<String> keys = new ArrayList<>(g.keys());
      e.getValue().stream().filter(k -> !keys.contains(k)).forEach(keys::add);
      Granted widened =
          new Granted(
              g.runnerId(),
              g.node(),
              g.leaseId(),
              g.agentId(),
              g.grantedAt(),
              g.expiresAt(),
              keys,
              g.startMs(),
              g.endMs());
      grants.put(g.leaseId(), widened);
      List<Granted> ofAgent = grantsByAgent.get(g.agentId());
      ofAgent.set(ofAgent.indexOf(g), widened);
    }
    for (List<Granted> list : grantsByAgent.values()) {
      list.sort(Comparator.comparingLong(Granted::grantedAt));
    }
    NewInputAnswers.interruptedBeforeTheNextGrant(published, grantsByAgent, interruptedAt);

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
    List<String> interruptedCompleted = new ArrayList<>();
    for (Granted g : grants.values()) {
      List<CompleteAttempt> attempts = attemptsByLease.getOrDefault(g.leaseId(), List.of());
      boolean accepted = attempts.stream().anyMatch(c -> c.outcome() == Outcome.OK);
      if (accepted && interruptedAt.containsKey(g.leaseId())) {
        interruptedCompleted.add(
            g.agentId()
                + ": lease "
                + g.leaseId()
                + " completed although interrupted at "
                + interruptedAt.get(g.leaseId()));
      }
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
        long end =
            Math.min(
                holdEnd(g, attemptsByLease, renewedUntil),
                interruptedAt.getOrDefault(g.leaseId(), Long.MAX_VALUE));
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

    List<String> endedEarly = endedEarly(grants, attemptsByLease, renewals, renewedUntil);
    // A lease new input interrupted is refused from then on, rightly.
    endedEarly.removeIf(
        line -> interruptedAt.keySet().stream().anyMatch(l -> line.contains("lease " + l + " ")));

    List<FaultWindow> windows = new ArrayList<>();
    faults.sort(Comparator.comparingLong(Fault::atMs));
    for (int i = 0; i < faults.size(); i++) {
      long until = i + 1 < faults.size() ? faults.get(i + 1).atMs() : Long.MAX_VALUE;
      windows.add(FaultWindows.of(faults.get(i), until, published, placements));
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
        endedEarly,
        windows,
        interruptedCompleted);
  }

  /**
   * Leases the cluster refused (410) to their own runner before their known expiry: a completion or
   * heartbeat answered "lost" although no earlier report of that lease had been sent (an unanswered
   * completion may have been applied, and its retry is rightly refused).
   */
  private static List<String> endedEarly(
      Map<String, Granted> grants,
      Map<String, List<CompleteAttempt>> attemptsByLease,
      List<Renewed> renewals,
      Map<String, Long> renewedUntil) {
    Map<String, Long> firstRefusal = new HashMap<>();
    Map<String, Long> firstCompletion = new HashMap<>();
    attemptsByLease.forEach(
        (lease, attempts) -> {
          for (CompleteAttempt c : attempts) {
            if (c.outcome() == Outcome.LOST) {
              firstRefusal.merge(lease, c.endMs(), Math::min);
            } else {
              firstCompletion.merge(lease, c.startMs(), Math::min);
            }
          }
        });
    for (Renewed r : renewals) {
      if (r.outcome() == Outcome.LOST) {
        firstRefusal.merge(r.leaseId(), r.endMs(), Math::min);
      }
    }
    List<String> early = new ArrayList<>();
    new TreeMap<>(firstRefusal)
        .forEach(
            (lease, refusedAt) -> {
              Granted g = grants.get(lease);
              if (g == null || firstCompletion.getOrDefault(lease, Long.MAX_VALUE) < refusedAt) {
                return;
              }
              long expiry = Math.max(g.expiresAt(), renewedUntil.getOrDefault(lease, 0L));
              if (refusedAt < expiry - CLOCK_SLACK_MS) {
                early.add(
                    g.agentId()
                        + ": lease "
                        + lease
                        + " refused at "
                        + refusedAt
                        + ", "
                        + (expiry - refusedAt)
                        + " ms before its expiry "
                        + expiry);
              }
            });
    return early;
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
}
